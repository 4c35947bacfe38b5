/* global document */
// The merchant page's own script (served from its origin: the page's CSP allows no inline script).
// It listens to the checkout component's events and never sees a secret.

/** @typedef {{ code: string, name: string, currency: string, totalAmount: number }} Selection */

const choice = /** @type {HTMLElement} */ (document.getElementById('choice'));
const pay = /** @type {HTMLButtonElement} */ (document.getElementById('pay'));
const checkout = /** @type {HTMLElement} */ (document.querySelector('payment-checkout'));
// The page's language (its <html lang>, set by the server from ?lang=); the component follows the same one.
const lang = document.documentElement.lang === 'en' ? 'en' : 'id';
const TEXTS = {
  id: { choose: 'Silakan pilih metode pembayaran.', chosen: 'Dipilih: {name}, total {total}', next: '(toko sungguhan akan membuat pembayaran di servernya sekarang)' },
  en: { choose: 'Please choose a payment method.', chosen: 'Chosen: {name}, total {total}', next: '(a real shop would now create the payment on its server)' },
}[lang];

/** Amounts as the component writes them ("Rp 150.000" in both languages). */
function money(/** @type {number} */ amount, /** @type {string} */ currency) {
  return new Intl.NumberFormat(lang === 'id' ? 'id-ID' : 'en-ID', { style: 'currency', currency, minimumFractionDigits: 0 }).format(amount);
}

checkout.addEventListener('payment-checkout-select', (event) => {
  const selected = /** @type {CustomEvent<Selection | null>} */ (event).detail;
  pay.disabled = selected === null;
  choice.textContent = selected === null ? TEXTS.choose : TEXTS.chosen.replace('{name}', selected.name).replace('{total}', money(selected.totalAmount, selected.currency));
  choice.dataset.code = selected === null ? '' : selected.code;
});
checkout.addEventListener('payment-checkout-ended', (event) => {
  pay.disabled = true;
  choice.textContent = /** @type {CustomEvent<{ code: string, message: string }>} */ (event).detail.message;
  choice.dataset.code = '';
});
pay.addEventListener('click', () => {
  choice.textContent = `${choice.textContent ?? ''} ${TEXTS.next}`;
});
