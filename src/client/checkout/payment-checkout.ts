/**
 * The drop-in checkout component, served by the gateway as one ES module at
 * `/checkout/v1/checkout.js` (src/pipeline/plugins/use-checkout-component.ts bundles this file with esbuild):
 *
 * ```html
 * <script type="module" src="https://gateway.example/checkout/v1/checkout.js"></script>
 * <payment-checkout client-secret="cs_…_secret_…"></payment-checkout>
 * ```
 *
 * Given a checkout session's client secret it lists the session's channels (image, name, fee, total for the
 * session's amount, who pays the fee), unavailable ones disabled with a human reason, as an accessible radio
 * group (mouse, arrow keys, Space). The choice reaches the page as a `payment-checkout-select` event
 * (`detail`: {@link CheckoutSelection}, or null when the chosen channel stopped being available). The list
 * follows the gateway live over SSE (`paymentChannelsChanged`, graphql-sse); when the session expires or
 * ends, the component says so, disables every channel and sends `payment-checkout-ended`.
 *
 * Language (contract §12): the `locale` attribute, else the session's locale, else the page's `<html lang>`
 * (`id…` Indonesian, anything else English); every text is in ./messages.ts and a page replaces any of them
 * with the `translations` property (`el.translations = { id: { heading: 'Bayar dengan' } }`). Amounts use
 * Indonesian number conventions in both languages ("Rp 150.000"). Channels appear under their group's
 * heading, groups and channels in the merchant's order (the gateway's list order).
 *
 * Safety invariants: no HTML is ever built from strings (DOM APIs and `textContent` only), no `eval`, no
 * inline script or style attribute (the stylesheet is constructed, ./styles.ts), images only from the
 * gateway's origin, and the client secret is never written to the DOM, to storage or to the console.
 * Attributes: `client-secret` (required), `gateway` (default: the origin this module was loaded from),
 * `locale` (optional: `id` or `en`, any BCP 47 tag).
 */
import { GatewayError } from '../errors.js';
import { createSessionClient, type SessionClient } from '../session.js';
import { CHECKOUT_CSS } from './styles.js';
import { format, groupHeading, NUMBER_LOCALES, pickLocale, textsFor, type CheckoutTexts, type CheckoutTranslations } from './messages.js';
import type { Locale } from '../../shared/vocabulary.js';

export type { CheckoutTexts, CheckoutTranslations } from './messages.js';

/** `detail` of the `payment-checkout-select` event. */
export interface CheckoutSelection {
  code: string;
  name: string;
  currency: string;
  amount: number;
  totalAmount: number;
  /** All charges of the channel (fee + additional fee + tax) and who pays which part. */
  customerFee: number;
  merchantFee: number;
  /**
   * The gateway's signed fee quote of this choice (contract §11; null when it could not be obtained): post it
   * to your server, which verifies it (SDK `verifyQuote`) before it creates the payment. A fresh one comes in
   * a new event before this one expires.
   */
  quote: string | null;
  /** ISO 8601 instant until which the gateway honours `quote`. */
  quoteExpiresAt: string | null;
}

/** `detail` of the `payment-checkout-ended` event. */
export interface CheckoutEnded {
  /** SESSION_EXPIRED, SESSION_INVALID, ORIGIN_NOT_ALLOWED, SESSION_SCOPE or INTERNAL_ERROR. */
  code: string;
  message: string;
}

interface Fee {
  amount: number;
  totalAmount: number;
  customerFee: number;
  merchantFee: number;
  currency: string;
}

interface ChannelView {
  code: string;
  /** In the component's language. */
  name: string;
  /** ChannelGroup, e.g. VIRTUAL_ACCOUNT. */
  group: string;
  imageUrl: string;
  status: string;
  /** The limits, to say them when the amount is out of range. */
  feeInfo: { minTransactions: number; maxTransactions: number };
  availability: { selectable: boolean; reasons: string[] };
  fee: Fee | null;
  /** Moves when an operator changes the channel's instructions (contract §14): they are asked for again. */
  instructionsVersion: string;
}

/** The chosen channel's instructions as the gateway answers them (plain text; rendered as text). */
interface InstructionsView {
  locale: string;
  sections: { key: string; title: string; steps: string[] }[];
  unfilled: string[];
}

interface SessionView {
  id: string;
  amount: number;
  currency: string;
  expiresAt: string;
  /** The session's language (`id`/`en`), null when it has none. */
  locale: string | null;
}

const SESSION_QUERY = '{ checkoutSession { id amount currency expiresAt locale } }';
/**
 * The chosen channel's instructions (contract §14), asked for once per choice, language and operator change;
 * never part of the live list (a live event computes no instructions). The gateway fills the amount the
 * customer pays and the session's expiry, written in the browser's time zone.
 */
const INSTRUCTIONS_QUERY = 'query Instructions($code: String!, $locale: String, $timeZone: String) { paymentChannels(filter: { codes: [$code] }) { instructions(locale: $locale, timeZone: $timeZone) { locale sections { key title steps } unfilled } } }';
/** The session's last this-many milliseconds show a countdown. */
const COUNTDOWN_MS = 120_000;
/** How often the countdown's text (a polite live region) changes: often enough to read, rarely enough not to chatter. */
const COUNTDOWN_STEP_MS = 10_000;
/**
 * The chosen channel's quote, asked for when a customer chooses (and again before it expires): signing is paid
 * per choice, not per channel of every live-list event of every open checkout.
 */
const QUOTE_QUERY = 'query Quote($input: CalculateFeeInput!) { calculateFee(input: $input) { totalAmount quote { token expiresAt } } }';
/** A quote is renewed this long before it expires. */
const QUOTE_RENEW_MS = 30_000;
/** The subscription's first event is the current list; later ones follow every change (the merchant's order included). */
const CHANNELS_SUBSCRIPTION = `subscription Channels($amount: Decimal!, $locale: String) {
  paymentChannelsChanged { code name(locale: $locale) group imageUrl status feeInfo { minTransactions maxTransactions } availability { selectable reasons } fee(amount: $amount) { amount totalAmount customerFee merchantFee currency } instructionsVersion }
}`;

/** Why a channel cannot be chosen (GraphQL UnavailabilityReason → text key); AMOUNT_OUT_OF_RANGE says the limit. */
const REASONS: Record<string, keyof CheckoutTexts> = {
  MAINTENANCE: 'reasonMaintenance',
  OFFLINE: 'reasonOffline',
  AMOUNT_PRECISION: 'reasonPrecision',
  CURRENCY_MISMATCH: 'reasonCurrency',
  KYC_REQUIRED: 'reasonKyc',
};

/** What the customer is told when the session cannot be used (any other code: a generic message). */
const ENDED: Record<string, keyof CheckoutTexts> = {
  SESSION_EXPIRED: 'sessionExpired',
  SESSION_INVALID: 'sessionInvalid',
  ORIGIN_NOT_ALLOWED: 'originNotAllowed',
};

type Item = { row: HTMLDivElement; img: HTMLImageElement; name: HTMLSpanElement; detail: HTMLSpanElement; total: HTMLSpanElement; channel: ChannelView };

let sheet: CSSStyleSheet | undefined;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Where this module was loaded from: the default gateway. */
function moduleOrigin(): string {
  return new URL(import.meta.url).origin;
}

export class PaymentCheckoutElement extends HTMLElement {
  static readonly observedAttributes = ['client-secret', 'gateway', 'locale', 'instructions', 'show-merchant-fee'];

  readonly #root: ShadowRoot;
  readonly #section: HTMLElement;
  readonly #heading: HTMLHeadingElement;
  readonly #status: HTMLParagraphElement;
  readonly #summary: HTMLParagraphElement;
  readonly #group: HTMLDivElement;
  /** The session's last two minutes (a polite live region). */
  readonly #countdown: HTMLParagraphElement;
  /** The chosen channel's instructions, below the list. */
  readonly #instructions: HTMLDivElement;
  /** What the instructions panel shows: for which channel, language and version (a newer answer replaces it). */
  #shownInstructions: { code: string; locale: Locale; version: string; view: InstructionsView } | undefined;
  /** Bumped by every instructions request: an older answer is dropped. */
  #instructionsAsk = 0;
  #countdownTimer: ReturnType<typeof setInterval> | undefined;
  #countdownStart: ReturnType<typeof setTimeout> | undefined;
  readonly #items = new Map<string, Item>();
  /** ChannelGroup → its box (heading + rows), in the order of the list. */
  readonly #groups = new Map<string, { box: HTMLDivElement; heading: HTMLHeadingElement }>();
  #locale: Locale = 'en';
  #texts: CheckoutTexts = textsFor('en', undefined);
  #translations: CheckoutTranslations | undefined;
  /** What the status line says, kept as a text key so a change of texts re-renders it. */
  #statusText: { key: keyof CheckoutTexts; values?: Record<string, string>; problem: boolean } | undefined;
  #client: SessionClient | undefined;
  #stop: (() => void) | undefined;
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  #resumeTimer: ReturnType<typeof setTimeout> | undefined;
  /** Renews the chosen channel's quote before it expires. */
  #quoteTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every choice: a quote answer for an older choice is dropped. */
  #choice = 0;
  /** The total of the last reported choice (a live change of it is quoted and reported again). */
  #quotedTotal: number | undefined;
  #session: SessionView | undefined;
  #gateway = '';
  #selected: string | undefined;
  #ended = false;
  #connected = false;
  #formatter: Intl.NumberFormat | undefined;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    sheet ??= (() => {
      const s = new CSSStyleSheet();
      s.replaceSync(CHECKOUT_CSS);
      return s;
    })();
    this.#root.adoptedStyleSheets = [sheet];
    const section = el('section');
    this.#section = section;
    section.setAttribute('part', 'container');
    const heading = el('h2');
    this.#heading = heading;
    heading.id = 'pc-heading';
    this.#summary = el('p', 'summary');
    this.#status = el('p', 'status');
    this.#status.setAttribute('role', 'status');
    this.#status.setAttribute('aria-live', 'polite');
    this.#group = el('div');
    this.#group.setAttribute('role', 'radiogroup');
    this.#group.setAttribute('aria-labelledby', 'pc-heading');
    this.#group.addEventListener('keydown', (e) => this.#onKey(e));
    this.#group.addEventListener('click', (e) => {
      const row = (e.target as Element).closest('[role="radio"]');
      if (row instanceof HTMLElement && row.dataset.code) this.#choose(row.dataset.code, true);
    });
    this.#countdown = el('p', 'countdown');
    this.#countdown.setAttribute('role', 'timer');
    this.#countdown.setAttribute('aria-live', 'polite');
    this.#countdown.setAttribute('aria-atomic', 'true');
    this.#instructions = el('div', 'instructions');
    this.#instructions.setAttribute('part', 'instructions');
    this.#instructions.hidden = true;
    section.append(heading, this.#summary, this.#countdown, this.#status, this.#group, this.#instructions);
    this.#root.append(section);
  }

  /**
   * A merchant's replacements for any text, per language (contract §12), e.g.
   * `{ id: { heading: 'Bayar dengan' }, en: { heading: 'Pay with' } }`; keys are those of {@link CheckoutTexts}.
   */
  get translations(): CheckoutTranslations | undefined {
    return this.#translations;
  }

  set translations(value: CheckoutTranslations | undefined) {
    this.#translations = value ?? undefined;
    this.#applyTexts();
  }

  /** The language the component speaks now (`id` or `en`). */
  get locale(): Locale {
    return this.#locale;
  }

  /** The code of the chosen channel, if any. */
  get selected(): string | undefined {
    return this.#selected;
  }

  connectedCallback(): void {
    this.#connected = true;
    this.#start();
  }

  disconnectedCallback(): void {
    this.#connected = false;
    this.#teardown();
  }

  /** A changed secret, gateway or locale starts over (the upgrade's initial attribute calls precede connectedCallback). */
  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void {
    if (oldValue === newValue || !this.#connected) return;
    // What the customer reads changes; the session and the live list stay.
    if (name === 'show-merchant-fee') for (const item of this.#items.values()) this.#fill(item);
    else if (name === 'instructions') this.#showInstructions();
    else this.#start();
  }

  #teardown(): void {
    this.#stop?.();
    this.#stop = undefined;
    this.#client?.dispose();
    this.#client = undefined;
    clearTimeout(this.#expiryTimer);
    clearTimeout(this.#resumeTimer);
    clearTimeout(this.#quoteTimer);
    clearTimeout(this.#countdownStart);
    clearInterval(this.#countdownTimer);
    this.#countdownStart = undefined;
    this.#countdownTimer = undefined;
    this.#countdown.textContent = '';
    this.#instructionsAsk++;
    this.#expiryTimer = undefined;
    this.#resumeTimer = undefined;
    this.#quoteTimer = undefined;
    this.#choice++;
  }

  #start(): void {
    this.#teardown();
    this.#ended = false;
    this.#selected = undefined;
    this.#items.clear();
    this.#groups.clear();
    this.#group.replaceChildren();
    this.#session = undefined;
    this.#summary.textContent = '';
    this.#clearInstructions();
    // Until the session says otherwise: the attribute, else the page's language.
    this.#setLocale(pickLocale(this.getAttribute('locale'), null, document.documentElement.lang));
    const clientSecret = this.getAttribute('client-secret');
    if (!clientSecret) {
      this.#say('noSession', true);
      return;
    }
    this.#gateway = new URL(this.getAttribute('gateway') || moduleOrigin()).origin;
    const client = createSessionClient({ baseUrl: this.#gateway, clientSecret });
    this.#client = client;
    this.#say('loading');
    void client.graphql<{ checkoutSession: SessionView | null }>(SESSION_QUERY).then(
      ({ checkoutSession }) => {
        if (this.#client !== client) return;
        // Null only for a signed caller: this page's credential is no session.
        if (!checkoutSession) return this.#end('SESSION_INVALID');
        this.#session = checkoutSession;
        this.#setLocale(pickLocale(this.getAttribute('locale'), checkoutSession.locale, document.documentElement.lang));
        this.#armExpiry(checkoutSession.expiresAt);
        this.#subscribe(client, checkoutSession);
      },
    ).catch((err: unknown) => this.#fail(err));
  }

  /** The live list: the subscription's first event is the current state, then one per change. */
  #subscribe(client: SessionClient, session: SessionView): void {
    this.#stop = client.subscribe<{ paymentChannelsChanged: ChannelView[] }>(CHANNELS_SUBSCRIPTION, { amount: session.amount, locale: this.#locale }, {
      next: (data) => this.#render(data.paymentChannelsChanged),
      error: (err) => this.#fail(err),
      // The gateway ends the stream when the session expires or its key is revoked (or when a replica
      // drains): past `expiresAt` it is the expiry (no request, whose 401 a browser would log as an
      // error); before, ask the gateway, which says why, or serves the session and the stream resumes.
      complete: () => {
        this.#stop = undefined;
        if (this.#isPastExpiry()) this.#end('SESSION_EXPIRED');
        else this.#check();
      },
    });
  }

  #isPastExpiry(): boolean {
    return this.#session !== undefined && Date.now() >= Date.parse(this.#session.expiresAt);
  }

  /**
   * A fallback for a stream that outlives `expiresAt` (by the page's clock, plus 2 s): ask the gateway
   * whether the session still holds. Normally the gateway has ended the stream by then.
   */
  #armExpiry(expiresAt: string): void {
    const due = Date.parse(expiresAt) - Date.now();
    if (!Number.isFinite(due)) return;
    // setTimeout's limit is 2^31-1 ms; sessions last at most a day.
    this.#expiryTimer = setTimeout(() => this.#check(), Math.min(Math.max(due + 2_000, 0), 2_147_000_000));
    this.#countdownStart = setTimeout(() => this.#startCountdown(), Math.min(Math.max(due - COUNTDOWN_MS, 0), 2_147_000_000));
  }

  /**
   * The session's last two minutes: how long is left, in a polite live region changed every 10 s (a screen
   * reader announces it between other speech). At `expiresAt` it empties: the expiry is said once, by #end.
   */
  #startCountdown(): void {
    const tick = () => {
      const left = this.#session ? Date.parse(this.#session.expiresAt) - Date.now() : 0;
      if (this.#ended || left <= 0) {
        clearInterval(this.#countdownTimer);
        this.#countdownTimer = undefined;
        this.#countdown.textContent = '';
        return;
      }
      const seconds = Math.ceil(left / 1000);
      this.#countdown.textContent = format(this.#texts.timeLeft, { time: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}` });
    };
    clearInterval(this.#countdownTimer);
    this.#countdownTimer = setInterval(tick, COUNTDOWN_STEP_MS);
    tick();
  }

  /** A time for the customer: in the page's language and the browser's zone ("18.41 WIB" / "6:41 PM"), never ISO. */
  #time(iso: string): string {
    const options: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };
    // Indonesian readers expect the zone's name (WIB, WITA, WIT); English ones the 12-hour clock alone.
    if (this.#locale === 'id') options.timeZoneName = 'short';
    return new Intl.DateTimeFormat(this.#locale === 'id' ? 'id-ID' : 'en-US', options).format(Date.parse(iso));
  }

  /** Re-ask the gateway for the session: an error says why it ended; success means it still holds. */
  #check(): void {
    const client = this.#client;
    if (!client || this.#ended) return;
    client.graphql<{ checkoutSession: SessionView | null }>(SESSION_QUERY).then(
      ({ checkoutSession }) => {
        if (this.#client !== client || this.#ended) return;
        if (!checkoutSession) return this.#end('SESSION_INVALID');
        // The session holds. A stream the gateway ended (a replica draining) resumes; a stream still open
        // past `expiresAt` means the page's clock runs ahead of the gateway's: look again later.
        // (Resumed after a second, so a gateway that keeps ending streams is not asked in a tight loop.)
        if (this.#stop === undefined) this.#resumeTimer = setTimeout(() => this.#subscribe(client, checkoutSession), 1_000);
        else this.#expiryTimer = setTimeout(() => this.#check(), 5_000);
      },
      (err: unknown) => this.#fail(err),
    );
  }

  #fail(err: unknown): void {
    this.#end(err instanceof GatewayError ? err.code : 'INTERNAL_ERROR');
  }

  /** The session cannot be used (any more): say why, disable everything, tell the page. */
  #end(code: string): void {
    if (this.#ended) return;
    this.#ended = true;
    const key = ENDED[code] ?? 'genericProblem';
    const message = this.#texts[key];
    this.#teardown();
    for (const item of this.#items.values()) this.#disable(item.row);
    this.#say(key, true);
    this.#clearInstructions();
    if (this.#selected !== undefined) {
      this.#selected = undefined;
      for (const item of this.#items.values()) item.row.setAttribute('aria-checked', 'false');
    }
    this.dispatchEvent(new CustomEvent<CheckoutEnded>('payment-checkout-ended', { detail: { code, message }, bubbles: true, composed: true }));
  }

  /** Say a text (by key, so a change of texts re-renders it); no key: clear the status line. */
  #say(key?: keyof CheckoutTexts, problem = false, values?: Record<string, string>): void {
    this.#statusText = key === undefined ? undefined : { key, values, problem };
    this.#status.textContent = key === undefined ? '' : format(this.#texts[key], values);
    this.#status.classList.toggle('problem', problem);
  }

  #setLocale(locale: Locale): void {
    const changed = locale !== this.#locale;
    this.#locale = locale;
    this.#applyTexts();
    if (changed) this.#showInstructions();
  }

  /** Every text on the component again, in the current language with the merchant's replacements. */
  #applyTexts(): void {
    this.#texts = textsFor(this.#locale, this.#translations);
    // The shadow content's language, so screen readers pronounce it right whatever the page says.
    this.#section.lang = this.#locale;
    this.#heading.textContent = this.#texts.heading;
    const session = this.#session;
    this.#formatter = session
      ? new Intl.NumberFormat(NUMBER_LOCALES[this.#locale], { style: 'currency', currency: session.currency, minimumFractionDigits: 0 })
      : undefined;
    this.#summary.textContent = session
      ? `${format(this.#texts.amount, { amount: this.#money(session.amount) })} · ${format(this.#texts.validUntil, { time: this.#time(session.expiresAt) })}`
      : '';
    for (const [group, { heading }] of this.#groups) heading.textContent = groupHeading(this.#texts, group);
    for (const item of this.#items.values()) this.#fill(item);
    if (this.#statusText) this.#say(this.#statusText.key, this.#statusText.problem, this.#statusText.values);
    if (this.#shownInstructions) this.#renderInstructions(this.#shownInstructions.code, this.#shownInstructions.view);
  }

  #money(value: number): string {
    return this.#formatter ? this.#formatter.format(value) : String(value);
  }

  /** Why a channel cannot be chosen, in the customer's words: for an amount out of range, the limit it breaks. */
  #reason(channel: ChannelView): string {
    const reason = channel.availability.reasons[0] ?? '';
    if (reason === 'AMOUNT_OUT_OF_RANGE' && this.#session) {
      const { minTransactions: min, maxTransactions: max } = channel.feeInfo;
      return this.#session.amount < min ? format(this.#texts.reasonBelowMin, { min: this.#money(min) }) : format(this.#texts.reasonAboveMax, { max: this.#money(max) });
    }
    const key = REASONS[reason];
    return key ? this.#texts[key] : this.#texts.reasonOther;
  }

  /** The box of a group (heading + its rows), made on first use. */
  #groupBox(group: string): HTMLDivElement {
    let entry = this.#groups.get(group);
    if (!entry) {
      const box = el('div', 'group');
      box.setAttribute('part', 'group');
      const heading = el('h3', 'group-heading', groupHeading(this.#texts, group));
      heading.setAttribute('part', 'group-heading');
      box.append(heading);
      entry = { box, heading };
      this.#groups.set(group, entry);
    }
    return entry.box;
  }

  #disable(row: HTMLDivElement): void {
    row.setAttribute('aria-disabled', 'true');
  }

  /** Update the list in place (keyed by code), so focus and the choice survive a live update. */
  #render(channels: ChannelView[]): void {
    if (this.#ended) return;
    const seen = new Set<string>();
    // Groups in the order their first channel comes in the (merchant-ordered) list; channels in list order.
    const groupsInOrder: string[] = [];
    for (const channel of channels) {
      seen.add(channel.code);
      let item = this.#items.get(channel.code);
      if (!item) {
        item = this.#createItem(channel);
        this.#items.set(channel.code, item);
      }
      item.channel = channel;
      this.#fill(item);
      if (!groupsInOrder.includes(channel.group)) groupsInOrder.push(channel.group);
      this.#groupBox(channel.group).append(item.row);
    }
    for (const [code, item] of this.#items) {
      if (seen.has(code)) continue;
      item.row.remove();
      this.#items.delete(code);
    }
    for (const [group, { box }] of this.#groups) {
      if (groupsInOrder.includes(group)) continue;
      box.remove();
      this.#groups.delete(group);
    }
    // Moving a node keeps focus only where the browser can; append in order (a no-op for boxes already in place).
    groupsInOrder.forEach((group, i) => {
      const box = this.#groups.get(group)!.box;
      if (this.#group.children[i] !== box) this.#group.insertBefore(box, this.#group.children[i] ?? null);
    });
    const chosen = this.#selected === undefined ? undefined : this.#items.get(this.#selected);
    if (this.#selected !== undefined && (!chosen || !chosen.channel.availability.selectable)) {
      const name = chosen?.channel.name ?? this.#selected;
      this.#selected = undefined;
      this.#choice++;
      clearTimeout(this.#quoteTimer);
      chosen?.row.setAttribute('aria-checked', 'false');
      this.#clearInstructions();
      if (chosen) this.#say('choiceLost', true, { name, reason: this.#reason(chosen.channel).toLocaleLowerCase(this.#locale) });
      else this.#say('choiceGone', true, { name });
      this.dispatchEvent(new CustomEvent<CheckoutSelection | null>('payment-checkout-select', { detail: null, bubbles: true, composed: true }));
    } else if (chosen && this.#quotedTotal !== undefined && chosen.channel.fee && chosen.channel.fee.totalAmount !== this.#quotedTotal) {
      // The live list moved the chosen channel's price: quote (and report) what the customer now sees.
      this.#choose(chosen.channel.code, false);
    } else if (chosen && this.#shownInstructions && chosen.channel.instructionsVersion !== this.#shownInstructions.version) {
      // An operator changed the chosen channel's instructions: show the new text.
      this.#showInstructions();
    } else if (this.#statusText?.key === 'loading') {
      if (channels.length === 0) this.#say('noMethods');
      else this.#say();
    }
    this.#updateTabStops();
  }

  #createItem(channel: ChannelView) {
    const row = el('div');
    row.setAttribute('role', 'radio');
    row.setAttribute('part', 'channel');
    row.dataset.code = channel.code;
    const img = el('img');
    img.alt = '';
    const text = el('span');
    const name = el('span', 'name');
    name.id = `pc-name-${channel.code}`;
    const detail = el('span', 'detail');
    detail.id = `pc-detail-${channel.code}`;
    text.append(name, el('br'), detail);
    const total = el('span', 'total');
    total.id = `pc-total-${channel.code}`;
    row.append(img, text, total);
    row.setAttribute('aria-labelledby', name.id);
    row.setAttribute('aria-describedby', `${detail.id} ${total.id}`);
    return { row, img, name, detail, total, channel };
  }

  #fill(item: Item): void {
    const { channel } = item;
    item.name.textContent = channel.name;
    const src = new URL(channel.imageUrl, this.#gateway);
    // Images only from the gateway itself, whatever a stored path says.
    if (src.origin === this.#gateway && item.img.src !== src.href) item.img.src = src.href;
    item.row.dataset.status = channel.status;
    const selectable = channel.availability.selectable && channel.fee !== null;
    if (selectable) {
      item.row.removeAttribute('aria-disabled');
      const fee = channel.fee!;
      item.detail.className = 'detail';
      item.detail.textContent = this.#feeText(fee);
      item.total.textContent = format(this.#texts.total, { total: this.#money(fee.totalAmount) });
    } else {
      this.#disable(item.row);
      item.detail.className = 'reason';
      item.detail.textContent = this.#reason(channel);
      item.total.textContent = '';
    }
    item.row.setAttribute('aria-checked', String(this.#selected === channel.code));
  }

  /**
   * The fee as the customer should read it (contract §14): only what they pay. A fee the shop bears is the
   * shop's business, shown only when the merchant asks (`show-merchant-fee`).
   */
  #feeText(fee: Fee): string {
    const charges = fee.customerFee + fee.merchantFee;
    const t = this.#texts;
    if (!this.hasAttribute('show-merchant-fee')) return fee.customerFee === 0 ? t.noFee : format(t.feeByCustomer, { fee: this.#money(fee.customerFee) });
    if (charges === 0) return t.noFee;
    if (fee.merchantFee === 0) return format(t.feeByCustomer, { fee: this.#money(fee.customerFee) });
    if (fee.customerFee === 0) return format(t.feeByShop, { fee: this.#money(fee.merchantFee) });
    return format(t.feeSplit, { fee: this.#money(charges), customerFee: this.#money(fee.customerFee), shopFee: this.#money(fee.merchantFee) });
  }

  #clearInstructions(): void {
    this.#instructionsAsk++;
    this.#shownInstructions = undefined;
    this.#instructions.replaceChildren();
    this.#instructions.hidden = true;
  }

  /**
   * Ask for the chosen channel's instructions in the component's language (none: `instructions="off"`, for
   * merchants who show their own). An answer for an older choice, language or version is dropped.
   */
  #showInstructions(): void {
    const client = this.#client;
    const code = this.#selected;
    const item = code === undefined ? undefined : this.#items.get(code);
    if (this.getAttribute('instructions') === 'off' || !client || !item || this.#ended) {
      this.#clearInstructions();
      return;
    }
    const ask = ++this.#instructionsAsk;
    const locale = this.#locale;
    const version = item.channel.instructionsVersion;
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    client.graphql<{ paymentChannels: { instructions: InstructionsView }[] }>(INSTRUCTIONS_QUERY, { code: code!, locale, timeZone }).then(
      (data) => {
        if (ask !== this.#instructionsAsk || this.#selected !== code || this.#ended) return;
        const view = data.paymentChannels[0]?.instructions;
        if (!view || view.sections.length === 0) return this.#clearInstructions();
        this.#shownInstructions = { code: code!, locale, version, view };
        this.#renderInstructions(code!, view);
      },
      (err: unknown) => {
        // The list and the choice stand without them; an ended session is handled by the live list.
        console.warn('payment-checkout: no instructions for this choice', err instanceof GatewayError ? err.code : err);
      },
    );
  }

  /** Headings and ordered lists in collapsible sections (the first open); text only, never markup. */
  #renderInstructions(code: string, view: InstructionsView): void {
    const name = this.#items.get(code)?.channel.name ?? code;
    const heading = el('h3', undefined, format(this.#texts.instructionsHeading, { name }));
    const sections = view.sections.map((s, i) => {
      const details = el('details');
      details.setAttribute('part', 'instruction-section');
      details.dataset.key = s.key;
      if (i === 0) details.open = true;
      const summary = el('summary');
      summary.append(el('h4', undefined, s.title));
      const list = el('ol');
      // The pay code comes from the shop after the choice: until then the step names it in words.
      for (const step of s.steps) list.append(el('li', undefined, step.replaceAll('{{pay_code}}', this.#texts.payCodePlaceholder)));
      details.append(summary, list);
      return details;
    });
    this.#instructions.lang = view.locale;
    this.#instructions.replaceChildren(heading, ...sections);
    this.#instructions.hidden = false;
  }

  /** Selectable rows in the order the customer sees them (DOM order: groups and the merchant's order). */
  #enabledRows(): HTMLDivElement[] {
    return [...this.#group.querySelectorAll<HTMLDivElement>('[role="radio"]')].filter((r) => r.getAttribute('aria-disabled') !== 'true');
  }

  /** Roving tab stop: the chosen channel, else the first selectable one, is the group's one Tab stop. */
  #updateTabStops(): void {
    const enabled = this.#enabledRows();
    const stop = enabled.find((r) => r.dataset.code === this.#selected) ?? enabled[0];
    for (const item of this.#items.values()) item.row.tabIndex = item.row === stop ? 0 : -1;
  }

  #choose(code: string, focus: boolean): void {
    const item = this.#items.get(code);
    if (!item || this.#ended || item.row.getAttribute('aria-disabled') === 'true' || !item.channel.fee || !this.#session) return;
    this.#selected = code;
    for (const other of this.#items.values()) other.row.setAttribute('aria-checked', String(other === item));
    this.#updateTabStops();
    if (focus) item.row.focus();
    this.#say();
    const fee = item.channel.fee;
    const detail: Omit<CheckoutSelection, 'quote' | 'quoteExpiresAt'> = {
      code,
      name: item.channel.name,
      currency: fee.currency,
      amount: fee.amount,
      totalAmount: fee.totalAmount,
      customerFee: fee.customerFee,
      merchantFee: fee.merchantFee,
    };
    // A new choice, or the chosen channel's total moved: the instructions' amount is asked for again.
    const ask = this.#shownInstructions?.code !== code || this.#quotedTotal !== fee.totalAmount;
    this.#quotedTotal = fee.totalAmount;
    if (ask) this.#showInstructions();
    void this.#quoteAndReport(detail);
  }

  /** Ask the gateway for the choice's quote, then tell the page (with the quote, or null if none came). */
  async #quoteAndReport(detail: Omit<CheckoutSelection, 'quote' | 'quoteExpiresAt'>): Promise<void> {
    const choice = ++this.#choice;
    clearTimeout(this.#quoteTimer);
    const client = this.#client;
    const session = this.#session;
    let quote: { token: string; expiresAt: string } | null = null;
    if (client && session) {
      try {
        const data = await client.graphql<{ calculateFee: { quote: { token: string; expiresAt: string } | null } }>(QUOTE_QUERY, {
          input: { amount: session.amount, currency: session.currency, method: detail.code },
        });
        quote = data.calculateFee.quote;
      } catch (err) {
        // The choice is still reported (without a quote: the merchant server then prices it itself); an ended
        // session is handled by the live list.
        console.warn('payment-checkout: no fee quote for this choice', err instanceof GatewayError ? err.code : err);
      }
    }
    if (choice !== this.#choice || this.#ended || this.#selected !== detail.code) return;
    // A quote that lasts as long as the session is never renewed: the checkout ends with the session.
    if (quote && session && Date.parse(quote.expiresAt) < Date.parse(session.expiresAt)) {
      const renewIn = Date.parse(quote.expiresAt) - Date.now() - QUOTE_RENEW_MS;
      this.#quoteTimer = setTimeout(() => void this.#quoteAndReport(detail), Math.min(Math.max(renewIn, 1_000), 2_147_000_000));
    }
    const selection: CheckoutSelection = { ...detail, quote: quote?.token ?? null, quoteExpiresAt: quote?.expiresAt ?? null };
    this.dispatchEvent(new CustomEvent<CheckoutSelection>('payment-checkout-select', { detail: selection, bubbles: true, composed: true }));
  }

  /** WAI-ARIA radio group keys: arrows move to the next/previous selectable channel and choose it; Space chooses. */
  #onKey(e: KeyboardEvent): void {
    const current = (e.target as Element).closest('[role="radio"]');
    if (!(current instanceof HTMLDivElement) || !current.dataset.code) return;
    const rows = this.#enabledRows();
    if (e.key === ' ' || e.key === 'Enter') {
      e.preventDefault();
      this.#choose(current.dataset.code, true);
      return;
    }
    const step = e.key === 'ArrowDown' || e.key === 'ArrowRight' ? 1 : e.key === 'ArrowUp' || e.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0 || rows.length === 0) return;
    e.preventDefault();
    const at = rows.indexOf(current);
    const next = rows[(at + step + rows.length) % rows.length]!;
    this.#choose(next.dataset.code!, true);
  }
}

if (!customElements.get('payment-checkout')) customElements.define('payment-checkout', PaymentCheckoutElement);

declare global {
  interface HTMLElementTagNameMap {
    'payment-checkout': PaymentCheckoutElement;
  }
  interface HTMLElementEventMap {
    'payment-checkout-select': CustomEvent<CheckoutSelection | null>;
    'payment-checkout-ended': CustomEvent<CheckoutEnded>;
  }
}
