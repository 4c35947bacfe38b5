/* global document */
// The merchant page's own script (served from its origin: the page's CSP allows no inline script).
// It listens to the checkout component's events and never sees a secret.

/** @typedef {{ code: string, name: string, currency: string, totalAmount: number, quote: string | null, quoteExpiresAt: string | null }} Selection */

const choice = /** @type {HTMLElement} */ (document.getElementById('choice'));
const pay = /** @type {HTMLButtonElement} */ (document.getElementById('pay'));
const checkout = /** @type {HTMLElement} */ (document.querySelector('payment-checkout'));
const charge = /** @type {HTMLElement} */ (document.getElementById('charge'));
/** Bumped per choice: a late verification of an earlier choice is not shown. */
let choiceNumber = 0;

/**
 * Post the component's fee quote to this shop's server (never to the gateway from here: the shop's server
 * is who creates the payment), which verifies it and answers what it would charge.
 */
async function verifyOnServer(/** @type {Selection} */ selected, /** @type {number} */ mine) {
  if (!selected.quote) {
    charge.textContent = 'No quote for this choice: the shop would price it again when you pay.';
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
    ? `Quote verified by the shop: you will be charged ${answer.currency} ${(answer.totalAmount ?? 0).toLocaleString('en-US')} (quote ${answer.quoteId}, valid until ${answer.expiresAt}).`
    : `The shop could not verify this quote (${answer.code}).`;
}

checkout.addEventListener('payment-checkout-select', (event) => {
  const selected = /** @type {CustomEvent<Selection | null>} */ (event).detail;
  pay.disabled = selected === null;
  choice.textContent = selected === null ? 'Please choose a payment method.' : `Chosen: ${selected.name}, total ${selected.currency} ${selected.totalAmount.toLocaleString('en-US')}`;
  choice.dataset.code = selected === null ? '' : selected.code;
  const mine = ++choiceNumber;
  charge.textContent = '';
  charge.dataset.verified = '';
  if (selected !== null) {
    verifyOnServer(selected, mine).catch(() => {
      if (mine === choiceNumber) charge.textContent = 'The shop could not be reached to verify the quote.';
    });
  }
});
checkout.addEventListener('payment-checkout-ended', (event) => {
  pay.disabled = true;
  choice.textContent = /** @type {CustomEvent<{ code: string, message: string }>} */ (event).detail.message;
  choice.dataset.code = '';
});
pay.addEventListener('click', () => {
  choice.textContent = `${choice.textContent ?? ''} (a real shop would now create the payment on its server)`;
});
