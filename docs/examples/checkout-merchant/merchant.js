/* global document */
// The merchant page's own script (served from its origin: the page's CSP allows no inline script).
// It listens to the checkout component's events and never sees a secret.

/** @typedef {{ code: string, name: string, currency: string, totalAmount: number }} Selection */

const choice = /** @type {HTMLElement} */ (document.getElementById('choice'));
const pay = /** @type {HTMLButtonElement} */ (document.getElementById('pay'));
const checkout = /** @type {HTMLElement} */ (document.querySelector('payment-checkout'));

checkout.addEventListener('payment-checkout-select', (event) => {
  const selected = /** @type {CustomEvent<Selection | null>} */ (event).detail;
  pay.disabled = selected === null;
  choice.textContent = selected === null ? 'Please choose a payment method.' : `Chosen: ${selected.name}, total ${selected.currency} ${selected.totalAmount.toLocaleString('en-US')}`;
  choice.dataset.code = selected === null ? '' : selected.code;
});
checkout.addEventListener('payment-checkout-ended', (event) => {
  pay.disabled = true;
  choice.textContent = /** @type {CustomEvent<{ code: string, message: string }>} */ (event).detail.message;
  choice.dataset.code = '';
});
pay.addEventListener('click', () => {
  choice.textContent = `${choice.textContent ?? ''} (a real shop would now create the payment on its server)`;
});
