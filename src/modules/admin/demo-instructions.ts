/**
 * The demo catalogue's payment instructions (contract §14), in Indonesian and English: how a customer pays
 * each demo channel, written after the flows the banks, wallets and stores describe in their own public help
 * (menu names as their apps and ATMs show them), in this project's own words. No phone numbers, no links.
 *
 * Every virtual-account, retail-outlet and QRIS set shows the pay code (or the QR) and the amount to pay, and
 * says until when; the placeholders are filled per request (src/modules/channels/instructions.ts).
 */
import type { InstructionSection } from '../channels/domain/instructions.js';
import type { Locale } from '../../shared/vocabulary.js';

type Sets = Readonly<Record<Locale, readonly InstructionSection[]>>;

const s = (key: string, title: string, ...steps: string[]): InstructionSection => ({ key, title, steps });

/** Closing steps every virtual account shares: the check before confirming, and the receipt. */
const VA_CHECK_ID = 'Pastikan nama penerima {{merchant_name}} dan jumlah tagihan {{amount}} sudah sesuai, lalu konfirmasi.';
const VA_CHECK_EN = 'Check that the payee is {{merchant_name}} and the amount is {{amount}}, then confirm.';
const VA_DONE_ID = 'Simpan bukti transaksi. Pembayaran terverifikasi otomatis, tidak perlu mengirim bukti transfer.';
const VA_DONE_EN = 'Keep the receipt. The payment is verified automatically; there is no need to send proof of transfer.';
const VA_DEADLINE_ID = 'Bayar sebelum {{expires_at}}; setelah itu nomor Virtual Account tidak berlaku lagi.';
const VA_DEADLINE_EN = 'Pay before {{expires_at}}; after that the virtual account number no longer works.';

const BCA_VA: Sets = {
  id: [
    s('atm', 'ATM BCA',
      'Masukkan kartu ATM BCA dan PIN Anda.',
      'Pilih menu Transaksi Lainnya, lalu Transfer, lalu ke Rekening BCA Virtual Account.',
      'Masukkan nomor Virtual Account {{pay_code}}, lalu pilih Benar.',
      VA_CHECK_ID,
      'Ambil struk sebagai bukti pembayaran.',
      VA_DEADLINE_ID),
    s('mobile_banking', 'm-BCA (BCA mobile)',
      'Buka aplikasi BCA mobile dan pilih m-BCA, lalu masukkan kode akses Anda.',
      'Pilih m-Transfer, lalu BCA Virtual Account.',
      'Masukkan nomor Virtual Account {{pay_code}} dan pilih Send.',
      VA_CHECK_ID,
      'Masukkan PIN m-BCA untuk menyelesaikan pembayaran.',
      VA_DONE_ID),
    s('internet_banking', 'KlikBCA',
      'Masuk ke KlikBCA Individual dengan User ID dan PIN Anda.',
      'Pilih Transfer Dana, lalu Transfer ke BCA Virtual Account.',
      'Masukkan nomor Virtual Account {{pay_code}} dan pilih Lanjutkan.',
      VA_CHECK_ID,
      'Masukkan jawaban KeyBCA Appli 1 lalu pilih Kirim.',
      VA_DONE_ID),
  ],
  en: [
    s('atm', 'BCA ATM',
      'Insert your BCA ATM card and enter your PIN.',
      'Choose Other Transactions, then Transfer, then To BCA Virtual Account.',
      'Enter the virtual account number {{pay_code}} and choose Correct.',
      VA_CHECK_EN,
      'Take the printed receipt as proof of payment.',
      VA_DEADLINE_EN),
    s('mobile_banking', 'm-BCA (BCA mobile)',
      'Open the BCA mobile app, choose m-BCA and enter your access code.',
      'Choose m-Transfer, then BCA Virtual Account.',
      'Enter the virtual account number {{pay_code}} and tap Send.',
      VA_CHECK_EN,
      'Enter your m-BCA PIN to complete the payment.',
      VA_DONE_EN),
    s('internet_banking', 'KlikBCA',
      'Log in to KlikBCA Individual with your User ID and PIN.',
      'Choose Fund Transfer, then Transfer to BCA Virtual Account.',
      'Enter the virtual account number {{pay_code}} and choose Continue.',
      VA_CHECK_EN,
      'Enter the KeyBCA Appli 1 response and choose Submit.',
      VA_DONE_EN),
  ],
};

const BNI_VA: Sets = {
  id: [
    s('atm', 'ATM BNI',
      'Masukkan kartu ATM BNI dan PIN Anda.',
      'Pilih Menu Lainnya, lalu Transfer, lalu Virtual Account Billing.',
      'Masukkan nomor Virtual Account {{pay_code}}, lalu tekan Benar.',
      VA_CHECK_ID,
      'Ambil struk sebagai bukti pembayaran.',
      VA_DEADLINE_ID),
    s('mobile_banking', 'wondr by BNI / BNI Mobile Banking',
      'Buka aplikasi mobile banking BNI dan masuk ke akun Anda.',
      'Pilih menu Transfer, lalu Virtual Account Billing.',
      'Masukkan nomor Virtual Account {{pay_code}} sebagai nomor tujuan.',
      VA_CHECK_ID,
      'Masukkan password transaksi atau PIN Anda.',
      VA_DONE_ID),
    s('internet_banking', 'BNI Internet Banking',
      'Masuk ke BNI Internet Banking dengan User ID dan password Anda.',
      'Pilih Transfer, lalu Virtual Account Billing.',
      'Masukkan nomor Virtual Account {{pay_code}}.',
      VA_CHECK_ID,
      'Masukkan kode dari BNI e-Secure atau token untuk menyelesaikan pembayaran.',
      VA_DONE_ID),
  ],
  en: [
    s('atm', 'BNI ATM',
      'Insert your BNI ATM card and enter your PIN.',
      'Choose Other Menu, then Transfer, then Virtual Account Billing.',
      'Enter the virtual account number {{pay_code}} and press Correct.',
      VA_CHECK_EN,
      'Take the printed receipt as proof of payment.',
      VA_DEADLINE_EN),
    s('mobile_banking', 'wondr by BNI / BNI Mobile Banking',
      'Open the BNI mobile banking app and log in.',
      'Choose Transfer, then Virtual Account Billing.',
      'Enter the virtual account number {{pay_code}} as the destination.',
      VA_CHECK_EN,
      'Enter your transaction password or PIN.',
      VA_DONE_EN),
    s('internet_banking', 'BNI Internet Banking',
      'Log in to BNI Internet Banking with your User ID and password.',
      'Choose Transfer, then Virtual Account Billing.',
      'Enter the virtual account number {{pay_code}}.',
      VA_CHECK_EN,
      'Enter the code from BNI e-Secure or your token to complete the payment.',
      VA_DONE_EN),
  ],
};

const BRI_VA: Sets = {
  id: [
    s('atm', 'ATM BRI',
      'Masukkan kartu ATM BRI dan PIN Anda.',
      'Pilih Transaksi Lain, lalu Pembayaran, lalu Lainnya, lalu BRIVA.',
      'Masukkan nomor BRIVA {{pay_code}}, lalu pilih Benar.',
      VA_CHECK_ID + ' Pilih Ya untuk membayar.',
      'Ambil struk sebagai bukti pembayaran.',
      VA_DEADLINE_ID),
    s('mobile_banking', 'BRImo',
      'Buka aplikasi BRImo dan masuk ke akun Anda.',
      'Pilih menu BRIVA, lalu Pembayaran Baru.',
      'Masukkan nomor BRIVA {{pay_code}} dan pilih Lanjutkan.',
      VA_CHECK_ID,
      'Masukkan PIN BRImo untuk menyelesaikan pembayaran.',
      VA_DONE_ID),
    s('internet_banking', 'Internet Banking BRI',
      'Masuk ke Internet Banking BRI dengan User ID dan password Anda.',
      'Pilih Pembayaran, lalu BRIVA.',
      'Masukkan nomor BRIVA {{pay_code}}.',
      VA_CHECK_ID,
      'Masukkan password dan kode mToken, lalu pilih Kirim.',
      VA_DONE_ID),
  ],
  en: [
    s('atm', 'BRI ATM',
      'Insert your BRI ATM card and enter your PIN.',
      'Choose Other Transactions, then Payment, then Others, then BRIVA.',
      'Enter the BRIVA number {{pay_code}} and choose Correct.',
      VA_CHECK_EN + ' Choose Yes to pay.',
      'Take the printed receipt as proof of payment.',
      VA_DEADLINE_EN),
    s('mobile_banking', 'BRImo',
      'Open the BRImo app and log in.',
      'Choose BRIVA, then New Payment.',
      'Enter the BRIVA number {{pay_code}} and tap Continue.',
      VA_CHECK_EN,
      'Enter your BRImo PIN to complete the payment.',
      VA_DONE_EN),
    s('internet_banking', 'BRI Internet Banking',
      'Log in to BRI Internet Banking with your User ID and password.',
      'Choose Payment, then BRIVA.',
      'Enter the BRIVA number {{pay_code}}.',
      VA_CHECK_EN,
      'Enter your password and the mToken code, then choose Send.',
      VA_DONE_EN),
  ],
};

const MANDIRI_VA: Sets = {
  id: [
    s('atm', 'ATM Mandiri',
      'Masukkan kartu ATM Mandiri dan PIN Anda.',
      'Pilih Bayar/Beli, lalu Lainnya, lalu Multipayment.',
      'Masukkan nomor Virtual Account {{pay_code}}, lalu pilih Benar.',
      VA_CHECK_ID + ' Tekan 1, lalu Ya.',
      'Ambil struk sebagai bukti pembayaran.',
      VA_DEADLINE_ID),
    s('mobile_banking', "Livin' by Mandiri",
      "Buka aplikasi Livin' by Mandiri dan masuk ke akun Anda.",
      'Pilih menu Bayar, lalu cari penyedia jasa atau pilih Virtual Account.',
      'Masukkan nomor Virtual Account {{pay_code}} dan pilih Lanjutkan.',
      VA_CHECK_ID,
      "Masukkan PIN Livin' untuk menyelesaikan pembayaran.",
      VA_DONE_ID),
    s('internet_banking', 'Mandiri Internet Banking',
      'Masuk ke internet banking Mandiri dengan User ID dan PIN Anda.',
      'Pilih Bayar, lalu Multipayment.',
      'Masukkan nomor Virtual Account {{pay_code}} dan pilih Lanjut.',
      VA_CHECK_ID,
      'Masukkan kode dari token atau PIN transaksi Anda.',
      VA_DONE_ID),
  ],
  en: [
    s('atm', 'Mandiri ATM',
      'Insert your Mandiri ATM card and enter your PIN.',
      'Choose Pay/Buy, then Others, then Multipayment.',
      'Enter the virtual account number {{pay_code}} and choose Correct.',
      VA_CHECK_EN + ' Press 1, then Yes.',
      'Take the printed receipt as proof of payment.',
      VA_DEADLINE_EN),
    s('mobile_banking', "Livin' by Mandiri",
      "Open the Livin' by Mandiri app and log in.",
      'Choose Pay, then search for the biller or choose Virtual Account.',
      'Enter the virtual account number {{pay_code}} and tap Continue.',
      VA_CHECK_EN,
      "Enter your Livin' PIN to complete the payment.",
      VA_DONE_EN),
    s('internet_banking', 'Mandiri Internet Banking',
      'Log in to Mandiri internet banking with your User ID and PIN.',
      'Choose Pay, then Multipayment.',
      'Enter the virtual account number {{pay_code}} and choose Next.',
      VA_CHECK_EN,
      'Enter the code from your token or your transaction PIN.',
      VA_DONE_EN),
  ],
};

const PERMATA_VA: Sets = {
  id: [
    s('atm', 'ATM Permata / ATM Bersama',
      'Masukkan kartu ATM dan PIN Anda.',
      'Di ATM Permata pilih Transaksi Lainnya, lalu Pembayaran, lalu Pembayaran Lainnya, lalu Virtual Account.',
      'Masukkan nomor Virtual Account {{pay_code}}, lalu pilih Benar.',
      VA_CHECK_ID,
      'Ambil struk sebagai bukti pembayaran.',
      VA_DEADLINE_ID),
    s('mobile_banking', 'PermataMobile X',
      'Buka aplikasi PermataMobile X dan masuk ke akun Anda.',
      'Pilih Bayar Tagihan, lalu Virtual Account.',
      'Masukkan nomor Virtual Account {{pay_code}}.',
      VA_CHECK_ID,
      'Masukkan kode OTP atau PIN yang diminta.',
      VA_DONE_ID),
    s('internet_banking', 'PermataNet',
      'Masuk ke PermataNet dengan User ID dan password Anda.',
      'Pilih Pembayaran Tagihan, lalu Virtual Account.',
      'Masukkan nomor Virtual Account {{pay_code}}.',
      VA_CHECK_ID,
      'Masukkan kode token atau OTP untuk menyelesaikan pembayaran.',
      VA_DONE_ID),
  ],
  en: [
    s('atm', 'Permata ATM / ATM Bersama',
      'Insert your ATM card and enter your PIN.',
      'At a Permata ATM choose Other Transactions, then Payment, then Other Payments, then Virtual Account.',
      'Enter the virtual account number {{pay_code}} and choose Correct.',
      VA_CHECK_EN,
      'Take the printed receipt as proof of payment.',
      VA_DEADLINE_EN),
    s('mobile_banking', 'PermataMobile X',
      'Open the PermataMobile X app and log in.',
      'Choose Pay Bills, then Virtual Account.',
      'Enter the virtual account number {{pay_code}}.',
      VA_CHECK_EN,
      'Enter the OTP or PIN you are asked for.',
      VA_DONE_EN),
    s('internet_banking', 'PermataNet',
      'Log in to PermataNet with your User ID and password.',
      'Choose Bill Payment, then Virtual Account.',
      'Enter the virtual account number {{pay_code}}.',
      VA_CHECK_EN,
      'Enter the token code or OTP to complete the payment.',
      VA_DONE_EN),
  ],
};

const QRIS: Sets = {
  id: [
    s('qr', 'Scan QRIS',
      'Buka aplikasi apa pun yang mendukung QRIS: mobile banking atau dompet digital.',
      'Pilih menu Scan atau Bayar, lalu arahkan kamera ke kode QR yang ditampilkan di halaman ini.',
      'Pastikan nama merchant {{merchant_name}} dan jumlah {{amount}} sudah sesuai.',
      'Konfirmasi dan masukkan PIN aplikasi Anda.',
      'Kode QR berlaku hingga {{expires_at}}. Simpan bukti pembayaran dari aplikasi Anda.'),
  ],
  en: [
    s('qr', 'Scan the QRIS code',
      'Open any app that supports QRIS: a mobile banking app or an e-wallet.',
      'Choose Scan or Pay and point the camera at the QR code shown on this page.',
      'Check that the merchant is {{merchant_name}} and the amount is {{amount}}.',
      'Confirm and enter your app PIN.',
      'The QR code is valid until {{expires_at}}. Keep the payment receipt from your app.'),
  ],
};

/** An e-wallet: the payment is approved in the wallet's own app. */
function wallet(app: string, idOpen: string, enOpen: string): Sets {
  return {
    id: [
      s('app', `Aplikasi ${app}`,
        idOpen,
        `Periksa rincian pembayaran: {{merchant_name}} sebesar {{amount}}.`,
        `Pastikan saldo ${app} Anda cukup, lalu pilih Bayar.`,
        `Masukkan PIN ${app} untuk menyetujui pembayaran.`,
        'Selesaikan sebelum {{expires_at}}; setelah itu permintaan pembayaran dibatalkan.'),
    ],
    en: [
      s('app', `${app} app`,
        enOpen,
        'Check the payment details: {{merchant_name}}, {{amount}}.',
        `Make sure your ${app} balance is enough, then tap Pay.`,
        `Enter your ${app} PIN to approve the payment.`,
        'Finish before {{expires_at}}; after that the payment request is cancelled.'),
    ],
  };
}

const OVO = wallet(
  'OVO',
  'Buka aplikasi OVO di ponsel yang nomornya Anda masukkan saat checkout, lalu buka notifikasi permintaan pembayaran.',
  'Open the OVO app on the phone whose number you entered at checkout and open the payment request notification.',
);
const DANA = wallet('DANA', 'Anda akan diarahkan ke aplikasi atau halaman DANA; masuk dengan nomor ponsel dan PIN Anda.', 'You are taken to the DANA app or page; log in with your phone number and PIN.');
const SHOPEEPAY = wallet('ShopeePay', 'Anda akan diarahkan ke aplikasi Shopee; pastikan Anda masuk dengan akun yang memiliki ShopeePay aktif.', 'You are taken to the Shopee app; make sure you are logged in to an account with ShopeePay activated.');

/** A retail outlet: paid in cash at the cashier with the pay code. */
function outlet(store: string, idStores: string, enStores: string): Sets {
  return {
    id: [
      s('counter', `Kasir ${store}`,
        `Datang ke gerai ${idStores} terdekat.`,
        `Sampaikan kepada kasir bahwa Anda ingin membayar tagihan {{merchant_name}} dengan kode pembayaran.`,
        'Tunjukkan kode pembayaran {{pay_code}} kepada kasir.',
        'Kasir akan menyebutkan jumlah yang harus dibayar: {{amount}}. Gerai dapat mengenakan biaya layanan sendiri.',
        'Bayar tunai atau dengan metode yang diterima gerai, lalu simpan struk sebagai bukti pembayaran.',
        'Bayar sebelum {{expires_at}}; setelah itu kode pembayaran tidak berlaku lagi.'),
    ],
    en: [
      s('counter', `${store} cashier`,
        `Go to the nearest ${enStores} store.`,
        'Tell the cashier you want to pay a {{merchant_name}} bill with a payment code.',
        'Show the payment code {{pay_code}} to the cashier.',
        'The cashier tells you the amount to pay: {{amount}}. The store may charge its own service fee.',
        'Pay in cash or with a method the store accepts, and keep the receipt as proof of payment.',
        'Pay before {{expires_at}}; after that the payment code no longer works.'),
    ],
  };
}

const ALFAMART = outlet('Alfamart', 'Alfamart, Alfamidi atau Dan+Dan', 'Alfamart, Alfamidi or Dan+Dan');
const INDOMARET = outlet('Indomaret', 'Indomaret', 'Indomaret');

const CREDIT_CARD: Sets = {
  id: [
    s('card', 'Kartu kredit atau debit',
      'Masukkan nomor kartu, tanggal kedaluwarsa (MM/YY) dan kode CVV di tiga digit belakang kartu.',
      'Periksa jumlah yang akan ditagihkan: {{amount}} untuk {{merchant_name}}.',
      'Bank penerbit kartu akan meminta verifikasi 3-D Secure: masukkan kode OTP yang dikirim bank Anda.',
      'Jangan pernah memberikan kode OTP kepada siapa pun, termasuk yang mengaku petugas bank atau toko.',
      'Pembayaran selesai setelah verifikasi berhasil; tagihan muncul di laporan kartu Anda.'),
  ],
  en: [
    s('card', 'Credit or debit card',
      'Enter the card number, the expiry date (MM/YY) and the CVV, the three digits on the back of the card.',
      'Check the amount to be charged: {{amount}} for {{merchant_name}}.',
      'Your card issuer asks for 3-D Secure verification: enter the one-time code your bank sends you.',
      'Never give the one-time code to anyone, including someone who says they are from the bank or the shop.',
      'The payment is complete once the verification succeeds; it appears on your card statement.'),
  ],
};

/** The demo instructions per channel code: every demo channel, both languages. */
export const DEMO_INSTRUCTIONS: Readonly<Record<string, Sets>> = {
  qris: QRIS,
  bca_va: BCA_VA,
  bni_va: BNI_VA,
  bri_va: BRI_VA,
  mandiri_va: MANDIRI_VA,
  permata_va: PERMATA_VA,
  ovo: OVO,
  dana: DANA,
  shopeepay: SHOPEEPAY,
  alfamart: ALFAMART,
  indomaret: INDOMARET,
  credit_card: CREDIT_CARD,
};
