// Opens the built book in headless Chromium, at 390 and 1280 px, and checks the SDK version picker
// (book/theme/sdk-picker.js, its markup from interop/render_picker.py) as a reader uses it:
// - the short answer and the SDK matrix each show a picker for rmcp, Python and TypeScript;
// - before a choice no mark says anything (no `data-applies`);
// - choosing an older release (rmcp 3.5.1, mcp 1.30.0) marks the newer behaviours (`data-since`
//   rmcp 3.6.0, mcp 2.0.0) `data-applies="false"`, struck through with a "not in your version"
//   note, and the statements that hold until that release "true"; choosing the newest marks them
//   the other way round (versions compared as numbers: 3.11.0 is after 3.6.0); every mark's
//   verdict is what this check computes from its attributes;
// - the choice survives following a link to another page, a reload, and the print view;
// - the picker fits a 390 px screen; no console error, no page error;
// - with JavaScript off the picker is hidden and every mark is plain text.
// Then the same checks run against broken copies of the script, served in its place (one that
// does nothing, one that throws, one that forgets the choice, one that compares versions as
// text): each must fail, and fail the check it breaks, or this check has no teeth (exit 2).
//
// Usage: node sdk-picker.mjs BOOK_HTML_DIR [SITE_PATH]
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveUnder } from './site.mjs';
import { launchBrowser } from './session.mjs';

const root = process.argv[2];
const sitePath = process.argv[3] ?? '/request-ids-book/';
if (!root) {
  console.error('usage: node sdk-picker.mjs BOOK_HTML_DIR [SITE_PATH]');
  process.exit(2);
}
const widths = [390, 1280];
const pickerPages = ['short-answer.html', 'sdk-matrix.html'];
const pickers = ['rmcp', 'python', 'typescript'];
// The choices made, the older and the newest: the release of each SDK as the marks name it.
const older = { rmcp: '3.5.1', mcp: '1.30.0' };
const newest = { rmcp: '3.11.0', mcp: '2.3.0' };
const scriptPattern = /\/sdk-picker[^/]*\.js$/;

// The script as built, and its broken copies: [name, the check it must fail, edit].
const scriptFile = await findScript(root);
const realScript = await readFile(scriptFile, 'utf8');
const mutants = [
  ['does nothing', 'older release', () => '// nothing\n'],
  ['throws', 'no errors', (s) => `throw new Error('a broken picker');\n${s}`],
  ['forgets the choice', 'page change', (s) => edit(s, 'window.localStorage.setItem(storagePrefix + key, version);', 'void version;')],
  ['compares versions as text', 'newest release', (s) => edit(s, 'const length = Math.max(a.parts.length, b.parts.length);',
    "const [x, y] = [a.parts.join('.'), b.parts.join('.')]; if (x !== y) return x < y ? -1 : 1; const length = 0;")],
];

function edit(script, from, to) {
  if (!script.includes(from)) throw new Error(`cannot break the script: it no longer holds ${JSON.stringify(from)}`);
  return script.replace(from, to);
}

async function findScript(dir) {
  // mdBook copies `additional-js` to the same relative path (book/theme/sdk-picker.js), perhaps
  // with a hash in the name.
  for (const entry of await readdir(dir, { recursive: true })) {
    if (scriptPattern.test(`/${entry}`)) return join(dir, entry);
  }
  console.error(`sdk-picker: no sdk-picker*.js under ${dir}: is it in book.toml's additional-js?`);
  process.exit(2);
}

/// Runs in the page: every mark with its attributes, verdict and look.
function marks() {
  return [...document.querySelectorAll('.sdk-mark')].map((mark) => ({
    since: mark.getAttribute('data-since'),
    until: mark.getAttribute('data-until'),
    applies: mark.getAttribute('data-applies'),
    struck: getComputedStyle(mark).textDecorationLine.includes('line-through'),
    note: getComputedStyle(mark, '::after').content,
    text: mark.textContent.replace(/\s+/g, ' ').trim(),
  }));
}

/// What a mark must say for `chosen` ({ sdk: version }): "true", "false", or null (no choice for
/// its SDK). Computed here, from the attributes, independently of the script.
function expected(mark, chosen) {
  const number = (version) => version.split('.').map(Number);
  const compare = (a, b) => {
    const [x, y] = [number(a), number(b)];
    for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
    return 0;
  };
  let applies = true;
  for (const [bound, holds] of [[mark.since, (c) => c >= 0], [mark.until, (c) => c <= 0]]) {
    if (bound === null) continue;
    const [sdk, version] = bound.split(' ');
    if (!(sdk in chosen)) return null;
    if (!holds(compare(chosen[sdk], version))) applies = false;
  }
  return String(applies);
}

async function choose(page, chosen) {
  for (const [sdk, version] of Object.entries(chosen)) {
    await page.locator(`select[data-sdk="${sdk}"]`).first().selectOption(version);
  }
}

/// Every mark on the page says what `chosen` implies; returns how many said true and false.
async function judged(page, where, chosen, fail) {
  const found = await page.evaluate(marks);
  const counts = { true: 0, false: 0, none: 0 };
  for (const mark of found) {
    const want = expected(mark, chosen);
    counts[want ?? 'none']++;
    if (mark.applies !== want) fail(`${where}: mark "${mark.text}" (${mark.since ?? ''}${mark.until ? ` until ${mark.until}` : ''}) says data-applies=${mark.applies}, not ${want}`);
    if (mark.struck !== (want === 'false')) fail(`${where}: mark "${mark.text}" is ${mark.struck ? '' : 'not '}struck through with data-applies=${want}`);
    if ((want === 'false') !== mark.note.includes('not in your version')) fail(`${where}: mark "${mark.text}" note ${mark.note} with data-applies=${want}`);
  }
  return counts;
}

/// All the checks against one script; returns the failures as { check, what }.
async function run(browser, base, script) {
  const failures = [];
  let check = '';
  const fail = (what) => failures.push({ check, what });
  for (const width of widths) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    if (script !== null) {
      await context.route(scriptPattern, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: script }));
    }
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    // print.html holds every chapter with its diagrams: slow to load on a busy machine.
    page.setDefaultNavigationTimeout(120000);
    page.on('console', (msg) => { if (msg.type() === 'error') failures.push({ check: 'no errors', what: `${width} px: console error: ${msg.text()}` }); });
    page.on('pageerror', (err) => failures.push({ check: 'no errors', what: `${width} px: page error: ${err.message}` }));
    try {
      check = 'picker shown';
      for (const name of pickerPages) {
        await page.goto(base + name, { waitUntil: 'load' });
        for (const key of pickers) {
          const select = page.locator(`select[data-sdk-picker="${key}"]`);
          if (await select.count() === 0) fail(`${width} px, ${name}: no <select data-sdk-picker="${key}">`);
          else if (!(await select.first().isVisible())) fail(`${width} px, ${name}: <select data-sdk-picker="${key}"> is not visible`);
        }
      }

      check = 'no choice, no verdict';
      await page.goto(base + pickerPages[0], { waitUntil: 'load' });
      const before = await judged(page, `${width} px, ${pickerPages[0]} before a choice`, {}, fail);
      if (before.none === 0) fail(`${width} px, ${pickerPages[0]}: no version marks to check`);

      check = 'older release';
      await choose(page, older);
      const olderCounts = await judged(page, `${width} px, ${pickerPages[0]}, rmcp ${older.rmcp} and mcp ${older.mcp}`, older, fail);
      const newerBehaviour = (await page.evaluate(marks)).filter((m) => m.since === 'rmcp 3.6.0' || m.since === 'mcp 2.0.0');
      if (newerBehaviour.length === 0) fail(`${width} px, ${pickerPages[0]}: no mark with data-since="rmcp 3.6.0" or "mcp 2.0.0"`);
      for (const mark of newerBehaviour) if (mark.applies !== 'false') fail(`${width} px: "${mark.text}" (since ${mark.since}) applies to rmcp ${older.rmcp} / mcp ${older.mcp}: ${mark.applies}`);
      if (olderCounts.false === 0 || olderCounts.true === 0) fail(`${width} px: after choosing older releases, ${olderCounts.true} marks apply and ${olderCounts.false} do not (want some of each)`);

      check = 'fits';
      // A mark inside a box that scrolls on its own (a wide table) may reach past the edge.
      const overflow = await page.evaluate(() => [...document.querySelectorAll('.sdk-picker, .sdk-mark')]
        .filter((el) => {
          for (let p = el.parentElement; p; p = p.parentElement) if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return false;
          return true;
        })
        .map((el) => el.getBoundingClientRect().right).filter((right) => right > document.documentElement.clientWidth + 1).length);
      if (overflow > 0) fail(`${width} px: ${overflow} picker or mark boxes reach past the right edge`);

      check = 'page change';
      await page.locator('main a[href^="sdk-matrix.html"]').first().click();
      await page.waitForLoadState('load');
      if (!page.url().startsWith(`${base}sdk-matrix.html`)) fail(`${width} px: the link led to ${page.url()}`);
      for (const [sdk, version] of Object.entries(older)) {
        const shown = await page.locator(`select[data-sdk="${sdk}"]`).first().inputValue();
        if (shown !== version) fail(`${width} px, sdk-matrix.html: the ${sdk} picker shows "${shown}", not ${version}`);
      }
      const matrixCounts = await judged(page, `${width} px, sdk-matrix.html after a page change`, older, fail);
      if (matrixCounts.false === 0) fail(`${width} px, sdk-matrix.html: no mark says it does not apply to the older releases`);

      check = 'reload';
      await page.reload({ waitUntil: 'load' });
      await judged(page, `${width} px, sdk-matrix.html after a reload`, older, fail);

      check = 'print view';
      await page.goto(`${base}print.html`, { waitUntil: 'load' });
      const printed = await judged(page, `${width} px, print.html`, older, fail);
      if (printed.false === 0) fail(`${width} px, print.html: no mark says it does not apply`);

      check = 'newest release';
      await page.goto(base + pickerPages[0], { waitUntil: 'load' });
      await choose(page, newest);
      const newestCounts = await judged(page, `${width} px, ${pickerPages[0]}, rmcp ${newest.rmcp} and mcp ${newest.mcp}`, newest, fail);
      if (newestCounts.true === 0) fail(`${width} px: no mark applies to the newest releases`);
    } catch (err) {
      fail(`${width} px: ${err.message.split('\n')[0]}`);
    }
    await context.close();

    check = 'without scripts';
    const noScript = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: false });
    const plain = await noScript.newPage();
    for (const name of pickerPages) {
      await plain.goto(base + name, { waitUntil: 'load' });
      if (await plain.locator('.sdk-picker').first().isVisible()) fail(`${width} px, ${name}, scripts off: the picker is visible`);
      for (const mark of await plain.evaluate(marks)) {
        if (mark.applies !== null || mark.struck || mark.note !== 'none') fail(`${width} px, ${name}, scripts off: mark "${mark.text}" is not plain text`);
      }
    }
    await noScript.close();
  }
  return failures;
}

const { server, base } = await serveUnder(root, sitePath, () => {});
const browser = await launchBrowser();
let status = 0;
try {
  const failures = await run(browser, base, null);
  for (const { check, what } of failures) console.error(`FAIL [${check}] ${what}`);
  console.log(`sdk picker (${scriptFile.slice(root.length + 1)}) at ${widths.join(' and ')} px: ${failures.length} failed`);
  if (failures.length > 0) status = 1;
  for (const [name, breaks, mutate] of mutants) {
    let broken;
    try {
      broken = mutate(realScript);
    } catch (err) {
      console.error(`sdk-picker: error: ${err.message}`);
      status = 2;
      continue;
    }
    const caught = await run(browser, base, broken);
    const checks = [...new Set(caught.map((failure) => failure.check))];
    if (!checks.includes(breaks)) {
      console.error(`sdk-picker: error: a script that ${name} passes the check "${breaks}" (it failed: ${checks.join(', ') || 'nothing'})`);
      status = 2;
    } else {
      console.log(`a script that ${name} fails, as it must: ${checks.join(', ')}`);
    }
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(status);
