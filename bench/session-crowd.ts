/**
 * Load generator of bench/sessions-soak.ts, in a process of its own (never the server's, never the probe's):
 * checkout sessions sending one GraphQL document at their documented rate (contract §9: 20 requests/s, the
 * first 40 at once), as a shopper with a few browser tabs would. Prints one JSON line of status counts.
 *
 * Input (JSON in argv[2]): { baseUrl, secrets, query, variables, ratePerSecond, burst, seconds }.
 */
interface CrowdInput {
  baseUrl: string;
  secrets: string[];
  query: string;
  variables?: Record<string, unknown>;
  ratePerSecond: number;
  burst: number;
  seconds: number;
}

const input = JSON.parse(process.argv[2]!) as CrowdInput;
const statuses: Record<string, number> = {};
const body = JSON.stringify({ query: input.query, variables: input.variables });

async function send(secret: string): Promise<void> {
  try {
    const res = await fetch(`${input.baseUrl}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  } catch (err) {
    const key = `error ${(err as Error).message}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
  }
}

async function session(secret: string, until: number): Promise<void> {
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < input.burst; i++) inFlight.push(send(secret));
  const interval = 1000 / input.ratePerSecond;
  for (let next = Date.now(); Date.now() < until; ) {
    next += interval;
    inFlight.push(send(secret));
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inFlight);
}

const until = Date.now() + input.seconds * 1000;
await Promise.all(input.secrets.map((s) => session(s, until)));
process.stdout.write(`${JSON.stringify({ statuses })}\n`);
