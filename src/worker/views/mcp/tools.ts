// The eight agentskills tools, with the names, arguments and returned text of
// agentskills-mcp-server 0.6.0 (the last release that had them; test/goldens/mcp-tools holds
// its answers) over the request's shelf service. Descriptions are our own. Domain errors (an
// unknown skill, section or resource) are tool results with isError, worded as that server
// words them: "Error executing tool <tool>: <agentskills-core's message>".
import type { CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { keepsTool } from "../../../core/disclosure/fast-path.ts";
import { renderOutline, SectionNotFoundError } from "../../../core/disclosure/outline.ts";
import { encodeResourceContent } from "../../../core/disclosure/resources.ts";
import { pyRepr } from "../../../core/python-compat/pyfmt.ts";
import { classify } from "../../errors.ts";
import { staticSkillIndex } from "../../read/indexes.ts";
import { NotOnShelfError, SkillBlockedError } from "../../shelf/errors.ts";
import type { ShelfService } from "../../shelf/service.ts";
import { pyJsonDumps } from "../../../core/python-compat/py-json.ts";
import { renderableOutline, sectionText } from "../../shelf/disclosure.ts";
import { requestStateOf } from "./request-state.ts";
import { inScope, type McpScope } from "./scope.ts";
import { skillMetadata } from "./skill-md.ts";

/** A failure the agent should read (agentskills-core's AgentSkillsError family), not a protocol error. */
class ToolDomainError extends Error {}

/** A failure Python reports without detail (its MCP SDK hides a non-domain exception's message). */
class UndetailedToolError extends Error {}

/** Resource kinds and the tool that reads each (agentskills-core's RESOURCE_KINDS). */
const RESOURCE_TOOLS = { get_skill_reference: "references", get_skill_asset: "assets", get_skill_script: "scripts" } as const;

// Argument schemas as agentskills-mcp-server's (FastMCP derives a title from each name).
const skillId = z.string().meta({ title: "Skill Id" });
const SkillArgs = z.object({ skill_id: skillId });
const SectionArgs = z.object({ skill_id: skillId, key: z.string().meta({ title: "Key" }) });
const ResourceArgs = z.object({ skill_id: skillId, name: z.string().meta({ title: "Name" }) });

/** The served skill `skillId` names, in scope; the registry's "not found" otherwise, or why it is blocked. */
async function skillFor(shelf: ShelfService, scope: McpScope, skillId: string) {
  const notFound = new ToolDomainError(`Skill '${skillId}' not found in registry`);
  if (!inScope(scope, skillId)) throw notFound;
  try {
    return await shelf.skill(skillId);
  } catch (error) {
    if (error instanceof NotOnShelfError) throw notFound;
    if (error instanceof SkillBlockedError) throw new ToolDomainError(error.message);
    throw error;
  }
}

/**
 * The file a resource tool reads: `name` inside the kind's folder, resolved as agentskills-fs
 * resolves it (`.` and `..` segments, nested names); a name that leaves the folder is not found,
 * one with a NUL or leaving the skill is invalid.
 */
async function resourceBytes(shelf: ShelfService, skillIdArg: string, kind: string, name: string): Promise<Uint8Array> {
  if (name.includes("\0")) throw new ToolDomainError(`Invalid resource name: ${pyRepr(name)}`);
  const segments: string[] = [kind];
  for (const segment of name.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") segments.push(segment);
    else if (segments.pop() === undefined) throw new ToolDomainError(`Invalid resource name: ${pyRepr(name)}`);
  }
  const missing = new ToolDomainError(`Resource ${pyRepr(name)} not found in ${kind}/ for skill ${pyRepr(skillIdArg)}`);
  if (segments[0] !== kind || segments.length < 2) throw missing;
  try {
    return await (await shelf.file(skillIdArg, segments.join("/"))).readChecked();
  } catch (error) {
    if (error instanceof NotOnShelfError) throw missing;
    throw error;
  }
}

/**
 * Runs a tool body. Every failure is an isError result worded as agentskills-mcp-server words it:
 * a domain error with its message, a storage failure as the transient one it is
 * (agentskills-core's SkillUnavailableError), anything else without detail (classify logs it).
 */
async function answer(tool: string, run: () => Promise<string>): Promise<CallToolResult> {
  try {
    return { content: [{ type: "text", text: await run() }] };
  } catch (error) {
    let detail: string | undefined;
    if (error instanceof ToolDomainError || error instanceof SectionNotFoundError) detail = error.message;
    else if (!(error instanceof UndetailedToolError) && classify(error).code === "storage_unavailable") {
      detail = "the shelf's storage did not answer; try again in a few seconds";
    }
    return { content: [{ type: "text", text: detail ? `Error executing tool ${tool}: ${detail}` : `Error executing tool ${tool}` }], isError: true };
  }
}

/**
 * Registers the eight tools on `server`; with the fast path active, only those it keeps
 * (keepsTool: the four body tools are redundant once the body is in the instructions). Each call
 * reads its own request's shelf and scope from its context (request-state.ts), so the server may
 * serve many requests in turn.
 * @example registerSkillTools(server, { fastPath: false })
 */
export function registerSkillTools(server: McpServer, options: { fastPath: boolean }): void {
  const offered = (tool: string) => !options.fastPath || keepsTool(tool);

  if (offered("get_skill_metadata")) {
    server.registerTool(
      "get_skill_metadata",
      { description: "The skill's SKILL.md frontmatter as a JSON object: name, description and every other field it declares.", inputSchema: SkillArgs },
      ({ skill_id }, ctx) =>
        answer("get_skill_metadata", async () => {
          const { shelf, scope } = requestStateOf(ctx);
          const metadata = await skillMetadata(shelf, await skillFor(shelf, scope, skill_id));
          // json.dumps refusing a value (a date) is a TypeError, not a domain error: Python says no more.
          if ("error" in metadata) throw new UndetailedToolError(metadata.error);
          return metadata.text;
        }),
    );
  }
  if (offered("get_skill_body")) {
    server.registerTool(
      "get_skill_body",
      { description: "The skill's instructions: the whole Markdown body of its SKILL.md, without the frontmatter.", inputSchema: SkillArgs },
      ({ skill_id }, ctx) =>
        answer("get_skill_body", async () => {
          const { shelf, scope } = requestStateOf(ctx);
          await skillFor(shelf, scope, skill_id);
          return shelf.body(skill_id);
        }),
    );
  }
  if (offered("get_skill_outline")) {
    server.registerTool(
      "get_skill_outline",
      {
        description:
          "The sections of the skill's body, each with the key get_skill_section takes and its estimated token cost, and the cost of the whole body. Read it first for a long skill; it says when the whole body is the cheaper read.",
        inputSchema: SkillArgs,
      },
      ({ skill_id }, ctx) =>
        answer("get_skill_outline", async () => {
          const { shelf, scope } = requestStateOf(ctx);
          await skillFor(shelf, scope, skill_id);
          return renderOutline(renderableOutline((await shelf.record(skill_id)).record));
        }),
    );
  }
  if (offered("get_skill_section")) {
    server.registerTool(
      "get_skill_section",
      {
        description:
          "One section of the skill's body by its outline key. Sections are flat: a heading's section stops at the next heading, whatever its level.",
        inputSchema: SectionArgs,
      },
      ({ skill_id, key }, ctx) =>
        answer("get_skill_section", async () => {
          const { shelf, scope } = requestStateOf(ctx);
          await skillFor(shelf, scope, skill_id);
          return sectionText(shelf, skill_id, key);
        }),
    );
  }
  server.registerTool(
    "list_skill_resources",
    {
      description:
        'The files the skill bundles, by kind: a JSON object {"references": [...], "scripts": [...], "assets": [...]} of names to pass to the resource tools.',
      inputSchema: SkillArgs,
    },
    ({ skill_id }, ctx) =>
      answer("list_skill_resources", async () => {
        const { shelf, scope } = requestStateOf(ctx);
        await skillFor(shelf, scope, skill_id);
        const { record } = await shelf.record(skill_id);
        const { references, scripts, assets } = staticSkillIndex(record);
        return pyJsonDumps({ references, scripts, assets });
      }),
  );
  const resourceDescriptions: Record<keyof typeof RESOURCE_TOOLS, string> = {
    get_skill_reference:
      "A reference document the skill bundles (references/<name>). Text comes back as is; other bytes as a JSON envelope with base64 content.",
    get_skill_asset:
      "An asset the skill bundles (assets/<name>): a template, data file or image. Text comes back as is; other bytes as a JSON envelope with base64 content.",
    get_skill_script:
      "A script the skill bundles (scripts/<name>), as its source text (other bytes as a JSON envelope with base64 content). Reading it runs nothing.",
  };
  for (const [tool, kind] of Object.entries(RESOURCE_TOOLS) as [keyof typeof RESOURCE_TOOLS, string][]) {
    server.registerTool(tool, { description: resourceDescriptions[tool], inputSchema: ResourceArgs }, ({ skill_id, name }, ctx) =>
      answer(tool, async () => {
        const { shelf, scope } = requestStateOf(ctx);
        await skillFor(shelf, scope, skill_id);
        return encodeResourceContent(name, await resourceBytes(shelf, skill_id, kind, name));
      }),
    );
  }
}
