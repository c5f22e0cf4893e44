// The files `skillshelf init` writes for a team's repository: a package that depends on skillshelf
// (the Worker and the CLI come from node_modules; nothing is forked), wrangler.toml for one shelf,
// the Worker's two-line entry, local-secret and git-ignore files, a README and a GitHub Actions
// workflow. Each file is a function of the team's answers and this package's own versions.
import {
  BINDINGS,
  COMPATIBILITY_DATE,
  OAUTH_COMPATIBILITY_FLAG,
  OPTIONAL_BINDINGS,
  OPTIONAL_VARS,
  PLACEHOLDER_KV_ID,
  SECRETS,
  VARS,
  VERSION_METADATA,
} from "./requirements.ts";

/** What a team's repository is made from. */
export interface TeamTemplateInput {
  /** The Worker's name, also its bucket's and KV namespace's (lowercase letters, digits, dashes). */
  name: string;
  /** How package.json names skillshelf: "file:vendor/skillshelf-0.1.0.tgz", a git URL, or a version range. */
  skillshelfSpec: string;
  /** The versions this skillshelf is built and tested with (its own package.json). */
  versions: { skillshelf: string; node: string; wrangler: string };
  /** The skills seeded from the curated shelf (empty for an empty shelf). */
  seeded: readonly string[];
  /** How the skillshelf package reaches the repository, for the README ("a tarball under vendor/", …). */
  packageSource: string;
}

/** The Worker's entry: the package's Worker, with room for options (OAuth and other sign-in methods). */
export const WORKER_ENTRY_FILE = "src/worker.ts";
/** Where `skillshelf dev` and the workflow build (git-ignored). */
export const TEAM_BUILD_DIR = ".skillshelf/build";
/** The workflow init writes. */
export const WORKFLOW_FILE = ".github/workflows/shelf.yml";

/** A file init writes: its path in the repository and its text. */
export interface TemplateFile {
  path: string;
  text: string;
}

function packageJson(input: TeamTemplateInput): string {
  const json = {
    name: input.name,
    private: true,
    type: "module",
    description: `${input.name}: a team's skill shelf, served by skillshelf`,
    scripts: {
      validate: "skillshelf validate shelf && skillshelf attest shelf --all --check",
      build: `skillshelf build shelf --out ${TEAM_BUILD_DIR}`,
      dev: "skillshelf dev",
      deploy: "wrangler deploy",
      "check-upgrade": "skillshelf init --check",
    },
    dependencies: { skillshelf: input.skillshelfSpec },
    // wrangler runs the Worker locally and deploys it; the `node` package pins the Node that npm scripts run
    // (wrangler needs Node 22 or later; the skillshelf CLI alone runs on Node 20).
    devDependencies: { node: input.versions.node, wrangler: input.versions.wrangler },
    // npm 11 runs install scripts only for the packages listed: the pinned Node's binary, esbuild's and workerd's.
    allowScripts: { esbuild: true, node: true, workerd: true },
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

function wranglerToml(input: TeamTemplateInput): string {
  const bucket = BINDINGS.find((b) => b.kind === "r2_buckets")!;
  const kv = BINDINGS.find((b) => b.kind === "kv_namespaces")!;
  const width = Math.max(...VARS.map((v) => `${v.name} = ${JSON.stringify(v.teamDefault)}`.length)) + 2;
  const vars = VARS.map((v) => {
    const line = `${v.name} = ${JSON.stringify(v.teamDefault)}`;
    return `${line.padEnd(width)}# ${v.why}`;
  });
  return `# ${input.name}: a skillshelf Worker (written by skillshelf init ${input.versions.skillshelf}; README.md says how to deploy it).
# After \`npm update skillshelf\`, run \`npx skillshelf init --check\`: it names any edit this file needs.
name = "${input.name}"
main = "${WORKER_ENTRY_FILE}"
# The date this skillshelf version is tested against; --check says when an upgrade needs a later one.
compatibility_date = "${COMPATIBILITY_DATE}"
# OAuth for hosted agents (Claude, ChatGPT, VS Code, Cursor; docs/oauth.md): uncomment this line, the
# ${OPTIONAL_BINDINGS[0]!.binding} block and ${OPTIONAL_VARS[0]!.name} below. The flag lets OAuth fetch client ID metadata documents.
# compatibility_flags = ["${OAUTH_COMPATIBILITY_FLAG}"]

[[r2_buckets]]
binding = "${bucket.binding}"
bucket_name = "${input.name}"          # npx wrangler r2 bucket create ${input.name}

[[kv_namespaces]]
binding = "${kv.binding}"
# A placeholder: local runs need none. Before deploying: npx wrangler kv namespace create ${input.name}, and paste its id.
id = "${PLACEHOLDER_KV_ID}"

# ${VERSION_METADATA.why[0]!.toUpperCase()}${VERSION_METADATA.why.slice(1)}.
[version_metadata]
binding = "${VERSION_METADATA.binding}"

# [[kv_namespaces]]
# binding = "${OPTIONAL_BINDINGS[0]!.binding}"       # ${OPTIONAL_BINDINGS[0]!.why}
# id = "<npx wrangler kv namespace create ${input.name}-oauth>"

[vars]
${vars.join("\n")}
# ${OPTIONAL_VARS[0]!.name} = "${OPTIONAL_VARS[0]!.teamDefault}"   # ${OPTIONAL_VARS[0]!.why}
# Sign-in with the team's identity provider (OpenID Connect; docs/oauth.md): uncomment these, keep one or
# both admission rules, and \`npx wrangler secret put SHELF_OIDC_CLIENT_SECRET\`.
${OPTIONAL_VARS.filter((v) => v.name.startsWith("SHELF_OIDC_"))
  .map((v) => `# ${v.name} = ${JSON.stringify(v.teamDefault)}   # ${v.why}`)
  .join("\n")}
# Webhooks after each publish, rollback and advisory change (skillshelf's docs/teams.md, "Webhooks"):
# uncomment, and \`echo "whsec_$(openssl rand -base64 32)" | npx wrangler secret put SHELF_WEBHOOK_SECRET\`.
${OPTIONAL_VARS.filter((v) => v.name.startsWith("SHELF_WEBHOOK_"))
  .map((v) => `# ${v.name} = ${JSON.stringify(v.teamDefault)}   # ${v.why}`)
  .join("\n")}

# Secrets are not written here: \`npx wrangler secret put <NAME>\` (README.md, "Deploy"); locally,
# \`skillshelf dev\` writes .dev.vars for you. ${SECRETS.map((s) => s.name).join(", ")}.
`;
}

const WORKER_TS = `// The team's shelf Worker: skillshelf's, from node_modules. Options go here when the team needs them
// (sign-in methods for a private shelf); everything else is wrangler.toml's vars, bindings and secrets.
import { createShelfWorker } from "skillshelf/worker";

export default createShelfWorker();
`;

const DEV_VARS_EXAMPLE = `# Local secrets for \`wrangler dev\` (copy to .dev.vars; never commit that file). \`npx skillshelf dev\`
# writes .dev.vars itself, with fresh local tokens, so you rarely edit this by hand.
${SECRETS.map((s) => `# ${s.name}: ${s.why}\n${s.name}=`).join("\n")}
`;

// wrangler, miniflare and workerd declare Node 22; on a machine's Node 20, npm warns once per package (about
// 145 lines) although npm scripts run on the pinned Node. Errors still print; \`npm install --loglevel=warn\` shows the rest.
const NPMRC = `# npm prints errors only: the EBADENGINE warnings on Node 20 are expected (npm scripts run on the Node
# package.json pins). npm install --loglevel=warn shows every warning.
loglevel=error
`;

const GITIGNORE = `node_modules/
.wrangler/
.skillshelf/
.dev.vars
.dev.vars.*
!.dev.vars.example
*.log
`;

function readme(input: TeamTemplateInput): string {
  const seeded = input.seeded.length
    ? `\`shelf/\` starts with ${input.seeded.length} skill(s) seeded from skillshelf's curated shelf (${input.seeded.join(", ")}); \`npx skillshelf seed --from curated --to shelf\` refreshes them from the skillshelf version you depend on, never overwriting your edits.`
    : "`shelf/` starts empty.";
  return `# ${input.name}

The team's skill shelf: the skills in \`shelf/skills/\`, served to agents by a
skillshelf Worker on Cloudflare. The Worker and the \`skillshelf\` CLI come
from the skillshelf package (${input.packageSource}); this repository holds only the team's skills and
configuration.

${seeded}

## Everyday

\`\`\`sh
npm install                      # once; npm scripts run on the Node pinned in package.json
mkdir -p shelf/skills/my-skill && $EDITOR shelf/skills/my-skill/SKILL.md
npm run validate                 # every problem, naming skill and field; trust records current
npx skillshelf attest shelf my-skill --by you@example.com   # record a review (otherwise: requires review)
npm run dev                      # local R2 and KV, publishes, prints the URLs and a read token
\`\`\`

## Deploy (once)

Needs a Cloudflare account (the Workers Free plan is enough to start) with R2 enabled:

\`\`\`sh
npx wrangler login
npx wrangler r2 bucket create ${input.name}
npx wrangler kv namespace create ${input.name}     # paste its id into wrangler.toml
export SKILLSHELF_PUBLISH_TOKEN="sk_publish_$(openssl rand -hex 16)"   # keep it as the CI secret SKILLSHELF_PUBLISH_TOKEN
printf %s "$SKILLSHELF_PUBLISH_TOKEN" | sha256sum | cut -d' ' -f1 | npx wrangler secret put PUBLISH_TOKEN_SHA256
READ_TOKEN="sk_read_$(openssl rand -hex 16)"                             # hand it to the team's agents
printf %s "$READ_TOKEN" | sha256sum | cut -d' ' -f1 | npx wrangler secret put READ_TOKEN_SHA256
openssl rand -hex 32 | npx wrangler secret put SHELF_SESSION_KEY
npm run deploy
\`\`\`

Then publish from CI: \`${WORKFLOW_FILE}\` validates, checks the trust records, audits (findings go to code scanning), builds (signed when
the \`SKILLSHELF_SIGNING_KEY\` secret is set) and publishes on every push to main. Set the repository
variable \`SHELF_URL\` (the Worker's URL), the secrets \`SKILLSHELF_PUBLISH_TOKEN\` and \`SKILLSHELF_READ_TOKEN\`
(a read token: \`--wait\` reads the private shelf to see the new generation served) and, to sign,
\`SKILLSHELF_SIGNING_KEY\` (\`npx skillshelf keygen --out signing.pem --key-id <id>\` prints the
public half to add to \`SHELF_SIGNING_KEYS\` in wrangler.toml; set \`SKILLSHELF_KEY_ID\` to the id).

## Upgrade skillshelf

\`\`\`sh
npm update skillshelf            # or replace the tarball under vendor/ and npm install it
npx skillshelf init --check      # names every edit wrangler.toml needs for the new version
npm run deploy
\`\`\`
`;
}

function workflow(input: TeamTemplateInput): string {
  return `# Validate, check trust records, build and publish the shelf (written by skillshelf init ${input.versions.skillshelf}).
# Needs the repository variable SHELF_URL and the secrets SKILLSHELF_PUBLISH_TOKEN and SKILLSHELF_READ_TOKEN (a
# read token, for --wait on a private shelf); signs when the secret
# SKILLSHELF_SIGNING_KEY (a PKCS#8 PEM from \`skillshelf keygen\`) and the variable SKILLSHELF_KEY_ID are set.
name: shelf

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read
  # The audit's SARIF goes to GitHub code scanning.
  security-events: write

concurrency:
  group: shelf-\${{ github.ref }}
  cancel-in-progress: false

jobs:
  shelf:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 24
      - run: npm ci
      - name: Validate
        run: npx skillshelf validate shelf
      - name: Check trust records
        run: npx skillshelf attest shelf --all --check
      - name: Audit (hostile content; fails on an unacknowledged high or critical finding)
        run: npx skillshelf audit shelf --sarif > audit.sarif
      - name: Upload the audit to code scanning
        if: \${{ always() && hashFiles('audit.sarif') != '' }}
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: audit.sarif
          category: skillshelf-audit
      - name: Build
        env:
          SIGNING_KEY: \${{ secrets.SKILLSHELF_SIGNING_KEY }}
          KEY_ID: \${{ vars.SKILLSHELF_KEY_ID }}
          SHELF_URL: \${{ vars.SHELF_URL }}
        run: |
          if [ -n "$SIGNING_KEY" ]; then
            key="$RUNNER_TEMP/signing.pem"
            (umask 077 && printf '%s\\n' "$SIGNING_KEY" > "$key")
            npx skillshelf build shelf --out ${TEAM_BUILD_DIR} --sign-key "$key" --key-id "$KEY_ID" --origin "$SHELF_URL"
            rm -f "$key"
          else
            npx skillshelf build shelf --out ${TEAM_BUILD_DIR}
          fi
      - name: Publish
        if: github.event_name == 'push' && github.ref == 'refs/heads/main'
        env:
          SKILLSHELF_PUBLISH_TOKEN: \${{ secrets.SKILLSHELF_PUBLISH_TOKEN }}
          # --wait reads the private shelf to see the new generation served.
          SKILLSHELF_READ_TOKEN: \${{ secrets.SKILLSHELF_READ_TOKEN }}
          SHELF_URL: \${{ vars.SHELF_URL }}
        run: npx skillshelf publish --url "$SHELF_URL" --dir ${TEAM_BUILD_DIR} --wait
`;
}

/**
 * Every file of a new team repository except the shelf itself and the vendored package.
 * @example teamFiles(input).map((f) => f.path) // => ["package.json", "wrangler.toml", "src/worker.ts", …]
 */
export function teamFiles(input: TeamTemplateInput): TemplateFile[] {
  return [
    { path: "package.json", text: packageJson(input) },
    { path: "wrangler.toml", text: wranglerToml(input) },
    { path: WORKER_ENTRY_FILE, text: WORKER_TS },
    { path: ".dev.vars.example", text: DEV_VARS_EXAMPLE },
    { path: ".gitignore", text: GITIGNORE },
    { path: ".npmrc", text: NPMRC },
    { path: "README.md", text: readme(input) },
    { path: WORKFLOW_FILE, text: workflow(input) },
  ];
}
