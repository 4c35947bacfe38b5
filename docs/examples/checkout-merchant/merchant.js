/* global document */
// The merchant page's own script (served from its origin: the page's CSP allows no inline script).
// It listens to the checkout component's events and never sees a secret.

/** @typedef {{ code: string, name: string, currency: string, totalAmount: number, quote: string | null, quoteExpiresAt: string | null }} Selection */

const choice = /** @type {HTMLElement} */ (document.getElementById('choice'));
const pay = /** @type {HTMLButtonElement} */ (document.getElementById('pay'));
const checkout = /** @type {HTMLElement} */ (document.querySelector('payment-checkout'));
// The page's language (its <html lang>, set by the server from ?lang=); the component follows the same one.
const lang = document.documentElement.lang === 'en' ? 'en' : 'id';
const TEXTS = {
  id: {
    choose: 'Silakan pilih metode pembayaran.',
    chosen: 'Dipilih: {name}, total {total}',
    next: '(toko sungguhan akan membuat pembayaran di servernya sekarang)',
    noQuote: 'Tidak ada penawaran biaya untuk pilihan ini: toko akan menghitung ulang saat Anda membayar.',
    verified: 'Penawaran diverifikasi oleh toko: Anda akan ditagih {total} (penawaran {id}, berlaku hingga {until}).',
    notVerified: 'Toko tidak dapat memverifikasi penawaran ini ({code}).',
    unreachable: 'Toko tidak dapat dihubungi untuk memverifikasi penawaran.',
  },
  en: {
    choose: 'Please choose a payment method.',
    chosen: 'Chosen: {name}, total {total}',
    next: '(a real shop would now create the payment on its server)',
    noQuote: 'No quote for this choice: the shop would price it again when you pay.',
    verified: 'Quote verified by the shop: you will be charged {total} (quote {id}, valid until {until}).',
    notVerified: 'The shop could not verify this quote ({code}).',
    unreachable: 'The shop could not be reached to verify the quote.',
  },
}[lang];

/** Amounts as the component writes them ("Rp 150.000" in both languages). */
function money(/** @type {number} */ amount, /** @type {string} */ currency) {
  return new Intl.NumberFormat(lang === 'id' ? 'id-ID' : 'en-ID', { style: 'currency', currency, minimumFractionDigits: 0 }).format(amount);
}

/** A time for the customer, in the page's language and the browser's zone ("18.41 WIB" / "6:41 PM"), never ISO. */
function time(/** @type {string} */ iso) {
  /** @type {Intl.DateTimeFormatOptions} */
  const options = { hour: 'numeric', minute: '2-digit' };
  if (lang === 'id') options.timeZoneName = 'short';
  return new Intl.DateTimeFormat(lang === 'id' ? 'id-ID' : 'en-US', options).format(Date.parse(iso));
}

const charge = /** @type {HTMLElement} */ (document.getElementById('charge'));
/** Bumped per choice: a late verification of an earlier choice is not shown. */
let choiceNumber = 0;

/**
 * Post the component's fee quote to this shop's server (never to the gateway from here: the shop's server
 * is who creates the payment), which verifies it and answers what it would charge.
 */
async function verifyOnServer(/** @type {Selection} */ selected, /** @type {number} */ mine) {
  if (!selected.quote) {
    charge.textContent = TEXTS.noQuote;
    charge.dataset.verified = 'false';
    return;
  }
  const res = await fetch('/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ quote: selected.quote }) });
  const body = /** @type {unknown} */ (await res.json());
  const answer = /** @type {{ verified: boolean, totalAmount?: number, currency?: string, quoteId?: string, expiresAt?: string, code?: string }} */ (body);
  if (mine !== choiceNumber) return;
  charge.dataset.verified = String(answer.verified);
  charge.dataset.total = answer.verified ? String(answer.totalAmount) : '';
  charge.textContent = answer.verified
    ? TEXTS.verified
        .replace('{total}', money(answer.totalAmount ?? 0, answer.currency ?? 'IDR'))
        .replace('{id}', answer.quoteId ?? '')
        .replace('{until}', answer.expiresAt ? time(answer.expiresAt) : '')
    : TEXTS.notVerified.replace('{code}', answer.code ?? '');
}

checkout.addEventListener('payment-checkout-select', (event) => {
  const selected = /** @type {CustomEvent<Selection | null>} */ (event).detail;
  pay.disabled = selected === null;
  choice.textContent = selected === null ? TEXTS.choose : TEXTS.chosen.replace('{name}', selected.name).replace('{total}', money(selected.totalAmount, selected.currency));
  choice.dataset.code = selected === null ? '' : selected.code;
  const mine = ++choiceNumber;
  charge.textContent = '';
  charge.dataset.verified = '';
  if (selected !== null) {
    verifyOnServer(selected, mine).catch(() => {
      if (mine === choiceNumber) charge.textContent = TEXTS.unreachable;
    });
  }
});
checkout.addEventListener('payment-checkout-ended', (event) => {
  pay.disabled = true;
  choice.textContent = /** @type {CustomEvent<{ code: string, message: string }>} */ (event).detail.message;
  choice.dataset.code = '';
});
pay.addEventListener('click', () => {
  choice.textContent = `${choice.textContent ?? ''} ${TEXTS.next}`;
});
