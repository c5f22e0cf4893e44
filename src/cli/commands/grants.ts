// skillshelf grants (list | revoke <grant-id> | revoke --user <email>) --url <worker-url> [--token-env NAME] [--json]:
// the OAuth grants hosted agents hold on a private shelf (docs/oauth.md), and revoking one, or every
// grant of a person who signed in with the team's identity provider, with the publish token. A
// revoked grant's access and refresh tokens stop working on their next request.
import { parseCommandArgs, UsageError, CliError, type Command } from "../lib/cli.ts";
import { answeringFetch, tokenFrom, workerUrl } from "../lib/publish.ts";
import { PublishError } from "../../core/publish/client.ts";

const USAGE = "skillshelf grants (list | revoke <grant-id> | revoke --user <email>) --url <worker-url> [--token-env NAME] [--json]";

/** One grant as GET /admin/v1/oauth/grants lists it. */
interface ListedGrant {
  grant_id: string;
  user_id: string;
  method?: string;
  /** Who signed in with the identity provider; null (or absent, from an older Worker) for a read token. */
  email?: string | null;
  client_id: string;
  client_name: string | null;
  scope: string[];
  created_at: string;
  expires_at: string | null;
}

/** Calls the grants index; a refusal becomes a one-line CLI error naming what the Worker said. */
async function call(url: string, token: string, method: "GET" | "DELETE", path: string): Promise<unknown> {
  // path is "", "/<grant id>" or "?user=<email>", each already checked or encoded by the caller.
  const fetchFn = answeringFetch(url);
  let response: Response;
  try {
    response = await fetchFn(new Request(`${url}/admin/v1/oauth/grants${path}`, { method, headers: { Authorization: `Bearer ${token}` } }));
  } catch (error) {
    if (error instanceof PublishError) throw new CliError(error.message);
    throw new CliError(`${method} ${url}/admin/v1/oauth/grants${path} failed: ${(error as Error).message}`);
  }
  const text = await response.text();
  let body: { message?: unknown } & Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as typeof body) : {};
  } catch {
    body = { message: text.slice(0, 200) };
  }
  if (!response.ok) throw new CliError(`${method} /admin/v1/oauth/grants${path}: ${response.status} ${String(body.message ?? response.statusText)}`);
  return body;
}

export const run: Command = async (ctx) => {
  const [sub, ...rest] = ctx.args;
  if (sub !== "list" && sub !== "revoke") throw new UsageError(`grants needs list or revoke\nusage: ${USAGE}`);
  const { values, positionals } = parseCommandArgs(
    rest,
    { url: { type: "string" }, "token-env": { type: "string" }, json: { type: "boolean" }, user: { type: "string" } },
    USAGE,
  );
  const url = workerUrl(values.url, USAGE);
  const token = tokenFrom(ctx, values["token-env"]);

  if (values.user !== undefined && sub !== "revoke") throw new UsageError(`--user goes with grants revoke\nusage: ${USAGE}`);
  if (sub === "revoke" && values.user !== undefined) {
    const email = values.user.trim();
    if (positionals.length) throw new UsageError(`grants revoke takes a grant id or --user, not both\nusage: ${USAGE}`);
    if (!/^[^\s@]{1,128}@[^\s@]{1,253}$/.test(email))
      throw new UsageError(`${JSON.stringify(values.user)} is not an e-mail address; --user takes the address the person signed in with`);
    const { revoked } = (await call(url, token, "DELETE", `?user=${encodeURIComponent(email)}`)) as { revoked: string[] };
    ctx.stdout(
      revoked.length === 0
        ? `${email} holds no grants (nothing revoked); remove them from the identity provider's allowed domains or group to keep them out\n`
        : `revoked ${revoked.length} grant(s) of ${email}: their tokens stop working on their next request\n`,
    );
    return 0;
  }
  if (sub === "revoke") {
    if (positionals.length !== 1) throw new UsageError(`grants revoke takes one grant id (see skillshelf grants list)\nusage: ${USAGE}`);
    const grantId = positionals[0]!;
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(grantId)) throw new UsageError(`${JSON.stringify(grantId)} is not a grant id; copy one from skillshelf grants list`);
    await call(url, token, "DELETE", `/${grantId}`);
    ctx.stdout(`revoked ${grantId}: its tokens stop working on their next request\n`);
    return 0;
  }

  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\nusage: ${USAGE}`);
  const { grants } = (await call(url, token, "GET", "")) as { grants: ListedGrant[] };
  if (values.json) {
    ctx.stdout(`${JSON.stringify({ grants }, null, 2)}\n`);
    return 0;
  }
  if (grants.length === 0) {
    ctx.stdout("no grants: no app is connected over OAuth\n");
    return 0;
  }
  for (const g of grants)
    ctx.stdout(`${g.grant_id}\t${g.client_name ?? g.client_id}\t${g.email ?? g.user_id}\t${g.scope.join(" ")}\t${g.created_at}\t${g.expires_at ?? "-"}\n`);
  return 0;
};
