// The pages' only style sheet and script, sent inline and allowed by their hashes in the page CSP
// (security.ts), so a page needs no second request and no 'unsafe-inline'. Light and dark follow
// prefers-color-scheme; the colors keep WCAG AA contrast on both (checked by axe-core in the browser tests).

/** The style sheet of every page. */
export const PAGE_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#545d68;--line:#d0d7de;--card:#f6f8fa;--link:#0550ae;--ok:#116329;--warn:#7d4e00;--bad:#a40e26;--code:#eff1f3}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#3d444d;--card:#161b22;--link:#71b7ff;--ok:#56d364;--warn:#e3b341;--bad:#ff7b72;--code:#1f242c}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
a{color:var(--link)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid var(--link);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px 8px;z-index:1}
header.site,main,footer.site{max-width:64rem;margin:0 auto;padding:0 1rem}
header.site{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:baseline;justify-content:space-between;border-bottom:1px solid var(--line);padding-top:.75rem;padding-bottom:.75rem}
header.site .brand{font-weight:700;font-size:1.15rem;text-decoration:none;color:var(--fg)}
footer.site{border-top:1px solid var(--line);margin-top:2rem;padding-top:1rem;padding-bottom:2rem;color:var(--muted);font-size:.875rem}
h1{font-size:1.6rem;margin:1rem 0 .5rem;overflow-wrap:anywhere}h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
.muted{color:var(--muted)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875em}
code{background:var(--code);padding:.1em .3em;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--code);padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
pre code{background:none;padding:0}
form.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:1rem 0}
form.search .field{display:flex;flex-direction:column;gap:.25rem;flex:1 1 12rem}
input,select,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--muted);border-radius:6px;padding:.4rem .6rem;min-height:2.5rem}
button{cursor:pointer;background:var(--card)}
ul.skills{list-style:none;padding:0;margin:0}
ul.skills>li{border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;margin:.5rem 0;background:var(--card)}
ul.skills h3{margin:0;font-size:1.1rem;overflow-wrap:anywhere}
.meta{display:flex;flex-wrap:wrap;gap:.25rem .75rem;font-size:.875rem;color:var(--muted);margin-top:.25rem}
.tags{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;padding:0;margin:.25rem 0 0}
.tags li{border:1px solid var(--line);border-radius:999px;padding:0 .5rem;font-size:.8rem}
.badge{display:inline-block;border:1px solid currentColor;border-radius:4px;padding:0 .4rem;font-size:.8rem;font-weight:600}
.badge.ok{color:var(--ok)}.badge.warn{color:var(--warn)}.badge.bad{color:var(--bad)}
.notice{border-left:4px solid var(--warn);background:var(--card);padding:.5rem 1rem;margin:1rem 0}
.notice.bad{border-color:var(--bad)}
nav.pages{display:flex;gap:1rem;margin:1rem 0}
.layout{display:grid;gap:1rem}
@media (min-width:56rem){.layout{grid-template-columns:16rem 1fr}.layout aside{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto}}
aside ol{padding-left:1.75rem;margin:0}aside li{margin:.2rem 0}
.toc-1{}.toc-2{margin-left:.75rem}.toc-3,.toc-4,.toc-5,.toc-6{margin-left:1.5rem}
.body{border:1px solid var(--line);border-radius:8px;padding:0 1rem;overflow-wrap:anywhere;overflow-x:auto}
.body table{display:block;overflow-x:auto}
.layout>*{min-width:0}
.body img{max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.875rem}
th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}
td.digest code{word-break:break-all}
.table-wrap{overflow-x:auto}
.snippet{margin:.75rem 0}.snippet h3{font-size:1rem;margin:.25rem 0}
.copy{float:right;margin:.25rem}
figure{margin:.5rem 0}figure img{max-width:100%;max-height:20rem;border:1px solid var(--line)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
`;

/**
 * Progressive enhancement for the copy buttons (the snippets are plain selectable text without it):
 * copies the snippet the button names and says so in a live region.
 */
export const PAGE_SCRIPT = `document.addEventListener("click",function(e){var b=e.target.closest("button[data-copy]");if(!b)return;var t=document.getElementById(b.getAttribute("data-copy"));if(!t)return;var s=document.getElementById("copy-status");var done=function(m){b.textContent=m;if(s)s.textContent=m;setTimeout(function(){b.textContent="Copy"},2000)};if(navigator.clipboard){navigator.clipboard.writeText(t.textContent).then(function(){done("Copied")},function(){done("Select and copy")})}else{done("Select and copy")}});document.querySelectorAll("button[data-copy]").forEach(function(b){b.hidden=false});`;
