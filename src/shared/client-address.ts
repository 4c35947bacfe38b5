/**
 * Contract §6 "Client addresses behind the balancer": which address a request comes from.
 *
 * `TRUSTED_PROXIES` names the balancers whose word is taken (addresses and CIDRs, IPv4 and IPv6; an IPv4
 * rule also matches the same address seen as IPv4-mapped IPv6, `::ffff:10.0.0.2`, as a dual-stack socket
 * reports it). A request whose socket peer is one of them is attributed to the last untrusted hop of its
 * `X-Forwarded-For` (HAProxy `option forwardfor` appends the address it saw, after whatever the client
 * sent, so walking from the right past trusted hops reaches the first address no client chose). From any
 * other peer the header is ignored: a client cannot choose its own address. Without trusted proxies, the
 * socket peer, as before.
 *
 * Pure functions of their arguments; the pipeline calls {@link clientAddressOf} once per request and keeps
 * the result in the request state (src/pipeline/request-state.ts), which everything else reads.
 */
import { BlockList, isIP } from 'node:net';

/**
 * Most `X-Forwarded-For` hops examined, from the right. Each trusted tier appends one hop, so a real chain
 * is one or two long; the bound keeps a long forged header (up to Node's 16 KB of headers) from costing
 * more than a few comparisons. Past it the walk stops at the last hop examined, which was trusted.
 */
export const MAX_FORWARDED_HOPS = 8;

/**
 * Trust decisions kept per address. `BlockList.check` costs about 2 µs (measured on this machine); the
 * addresses asked about are the balancers' and their clients', and a Map lookup is ~50 ns. Keyed by
 * client input (the hops), so bounded: when full it is emptied and refilled by the addresses still seen.
 */
export const DECISIONS_KEPT = 4096;

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) written as the IPv4 address it is. */
export function plainAddress(address: string): string {
  return address.length > 7 && address.charCodeAt(0) === 58 /* : */ && /^::ffff:\d{1,3}(?:\.\d{1,3}){3}$/i.test(address) ? address.slice(7) : address;
}

/** The parsed `TRUSTED_PROXIES`: the balancers whose `X-Forwarded-For` is taken. */
export class TrustedProxies {
  readonly #rules = new BlockList();
  readonly #decisions = new Map<string, boolean>();

  private constructor(
    /** The entries as configured (for the start-up log line). */
    readonly entries: readonly string[],
  ) {}

  /**
   * Parse a list of addresses and CIDRs separated by commas or spaces. Returns every problem (one per bad
   * entry) so that configuration can print them all; `proxies` is null for an empty list.
   */
  static parse(text: string): { proxies: TrustedProxies | null; problems: string[] } {
    const entries = text.split(/[\s,]+/).filter(Boolean);
    const problems: string[] = [];
    const proxies = new TrustedProxies(entries);
    for (const entry of entries) {
      const problem = proxies.#add(entry);
      if (problem) problems.push(problem);
    }
    return { proxies: entries.length > 0 && problems.length === 0 ? proxies : null, problems };
  }

  #add(entry: string): string | null {
    const slash = entry.indexOf('/');
    const address = slash === -1 ? entry : entry.slice(0, slash);
    const family = isIP(address);
    if (family === 0) return `"${entry}" is not an IP address or CIDR (for example 10.0.0.2, 10.0.0.0/24, fd00::/8)`;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (slash === -1) {
      this.#rules.addAddress(address, type);
      return null;
    }
    const prefixText = entry.slice(slash + 1);
    const max = family === 4 ? 32 : 128;
    const prefix = Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText) || prefix > max) return `"${entry}": the prefix length must be an integer from 1 to ${max}`;
    // /0 trusts every peer: anyone could then choose the address their requests are charged to.
    if (prefix === 0) return `"${entry}" trusts every address: any client could choose its own address; name the balancers`;
    this.#rules.addSubnet(address, prefix, type);
    return null;
  }

  /** How many trust decisions are kept (at most {@link DECISIONS_KEPT}). */
  get keptDecisions(): number {
    return this.#decisions.size;
  }

  /** Whether `address` (plain, see {@link plainAddress}) is one of the trusted balancers. */
  trusts(address: string): boolean {
    let decision = this.#decisions.get(address);
    if (decision === undefined) {
      const family = isIP(address);
      decision = family !== 0 && this.#rules.check(address, family === 4 ? 'ipv4' : 'ipv6');
      if (this.#decisions.size >= DECISIONS_KEPT) this.#decisions.clear();
      this.#decisions.set(address, decision);
    }
    return decision;
  }
}

/**
 * The client address of a request: its socket peer, or, when the peer is a trusted balancer, the last
 * untrusted hop of `forwardedFor` (`X-Forwarded-For`, repeated headers joined with ", "). A hop that is not
 * an IP address ends the walk at the nearest hop known good (no trusted balancer writes one). Undefined
 * only when the transport has no socket (the in-process `yoga.fetch`).
 */
export function clientAddressOf(peer: string | undefined, forwardedFor: string | undefined, trusted: TrustedProxies | null): string | undefined {
  if (peer === undefined) return undefined;
  let client = plainAddress(peer);
  if (trusted === null || forwardedFor === undefined || !trusted.trusts(client)) return client;
  let end = forwardedFor.length;
  for (let hops = 0; hops < MAX_FORWARDED_HOPS && end > 0; hops++) {
    const comma = forwardedFor.lastIndexOf(',', end - 1);
    const hop = plainAddress(forwardedFor.slice(comma + 1, end).trim());
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!trusted.trusts(hop)) return hop;
    end = comma === -1 ? 0 : comma;
  }
  return client;
}
