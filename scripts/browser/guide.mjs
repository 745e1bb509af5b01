// Opens the built guide (guide/, the book for mdbook-snippets users) in headless Chromium, served
// under the sub-path the Pages workflow publishes it at (/REPO/guide/), and checks what a reader
// sees: every page loads with no console error and no request leaving the site; the pages show
// the verified outputs of their snippets (the runs of the CLI among them), and the lines a `sh`
// snippet hides (`!!!example NAME`, which copies an example book) stay hidden until the reader
// asks for them; an artifact a snippet left shows under its output and opens; the search
// finds `--partition` and its first result opens; the print view has every chapter; every chapter
// links to its own source under guide/src/; and at 390 px and 1280 px (layout.mjs) prose never
// scrolls sideways.
//
// Usage: node guide.mjs GUIDE_HTML_DIR [SITE_PATH]   (SITE_PATH like /REPO/guide/, default /)
import { chromium } from 'playwright-core';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkWidths, selfTest } from './layout.mjs';
import { serveUnder } from './site.mjs';

const root = process.argv[2];
const sitePath = process.argv[3] ?? '/';
if (!root || !sitePath.startsWith('/') || !sitePath.endsWith('/')) {
  console.error('usage: node guide.mjs GUIDE_HTML_DIR [SITE_PATH]  (SITE_PATH starts and ends with /)');
  process.exit(2);
}
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const failures = [];
const fail = (what) => { failures.push(what); console.error(`FAIL ${what}`); };
const { server, base } = await serveUnder(root, sitePath, (url) => fail(`request outside the guide's sub-path ${sitePath}: ${url}`));
console.log(`serving ${root} at ${base}`);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  let current = '';
  page.on('console', (msg) => { if (msg.type() === 'error') fail(`${current}: console error: ${msg.text()}`); });
  page.on('pageerror', (err) => fail(`${current}: page error: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(base) && !url.startsWith('data:')) fail(`${current}: request leaves the guide: ${url}`);
  });

  const pages = (await readdir(root)).filter((f) => f.endsWith('.html') && !['404.html', 'print.html', 'toc.html'].includes(f)).sort();
  let outputs = 0, shellOutputs = 0;
  for (const name of pages) {
    current = name;
    const response = await page.goto(base + name, { waitUntil: 'load' });
    if (!response.ok()) fail(`${name}: HTTP ${response.status()}`);
    const seen = await page.evaluate(() => {
      const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
      const shell = [...document.querySelectorAll('pre > code.language-sh')];
      return {
        outputs: document.querySelectorAll('.mdbook-snippets-stdout').length,
        // A shell block followed (past whitespace) by the verifier's output.
        shellOutputs: shell.filter((code) => code.parentElement.nextElementSibling?.classList.contains('mdbook-snippets-output')).length,
        // Hidden lines are mdBook's `.boring` spans; none may show, and none may still carry the prefix.
        shownHidden: shell.flatMap((code) => [...code.querySelectorAll('.boring')]).filter(visible).length,
        prefixes: shell.filter((code) => code.innerText.includes('!!!')).length,
        copyLines: shell.filter((code) => /^example [\w-]+$/m.test(code.innerText)).length,
      };
    });
    outputs += seen.outputs; shellOutputs += seen.shellOutputs;
    if (seen.shownHidden > 0) fail(`${name}: ${seen.shownHidden} hidden lines of shell snippets are visible`);
    if (seen.prefixes > 0) fail(`${name}: ${seen.prefixes} shell snippets show the hidden-line prefix !!!`);
    if (seen.copyLines > 0) fail(`${name}: ${seen.copyLines} shell snippets show their \`example NAME\` line`);
    console.log(`${name}: ${seen.outputs} outputs, ${seen.shellOutputs} under shell snippets`);
  }
  if (outputs < 20) fail(`only ${outputs} snippet outputs in the whole guide (expected at least 20)`);
  if (shellOutputs < 10) fail(`only ${shellOutputs} outputs under shell snippets (runs of the CLI; expected at least 10)`);

  // A hidden line shows when the reader asks: mdBook's eye button on the block.
  current = 'first-book.html';
  await page.goto(base + 'first-book.html');
  const block = page.locator('pre:has(code.language-sh)').first();
  const toggle = block.locator('button.fa-eye, button[title*="hidden"], button[aria-label*="hidden"]').first();
  if (await toggle.count() === 0) {
    fail('first-book.html: the first shell snippet has no button to show its hidden lines');
  } else {
    // mdBook shows a block's buttons while the pointer is over it.
    await block.hover();
    await toggle.click();
    if (!/example first-book/.test(await block.innerText())) fail('first-book.html: the hidden `example first-book` line does not show on request');
  }

  // A snippet of the rendering page leaves `10-a_note.txt`: the page shows it under the
  // snippet's output, folded, and it opens on a click.
  current = 'rendering.html';
  await page.goto(base + 'rendering.html');
  const note = page.locator('.mdbook-snippets-output details > summary', { hasText: 'a note' });
  if (await note.count() === 0) {
    fail('rendering.html: no "a note" artifact under a snippet');
  } else {
    await note.first().click();
    const text = note.first().locator('xpath=..').locator('pre').first();
    if (!(await text.isVisible()) || !/MDBOOK_SNIPPETS_ARTIFACTS/.test(await text.innerText())) fail('rendering.html: the "a note" artifact does not open on a click');
  }

  current = 'search';
  await page.goto(base + 'index.html');
  await page.click('#mdbook-search-toggle');
  await page.locator('#mdbook-searchbar').pressSequentially('partition');
  try {
    await page.waitForSelector('#mdbook-searchresults li', { timeout: 10000 });
    await page.locator('#mdbook-searchresults li a').first().click();
    await page.waitForLoadState('load');
    if (!page.url().startsWith(base) || page.url() === `${base}index.html`) fail(`search: the first result opened ${page.url()}`);
    else console.log(`search "partition": the first result opened ${page.url().slice(base.length)}`);
  } catch (err) {
    fail(`search for "partition": ${err.message.split('\n')[0]}`);
  }

  current = 'print.html';
  const print = await page.goto(`${base}print.html`, { waitUntil: 'load' });
  if (!print.ok()) fail(`print.html: HTTP ${print.status()}`);
  const printed = await page.evaluate(() => ({
    headings: document.querySelectorAll('main h1').length,
    outputs: document.querySelectorAll('main .mdbook-snippets-stdout').length,
  }));
  if (printed.headings < pages.length - 1) fail(`print.html: ${printed.headings} chapter headings for ${pages.length - 1} chapters`);
  if (printed.outputs < outputs - 1) fail(`print.html: ${printed.outputs} outputs, the chapters have ${outputs}`);
  console.log(`print.html: ${printed.headings} chapter headings, ${printed.outputs} outputs`);

  // Every chapter's "Suggest an edit" link names its source file under guide/src/.
  current = 'edit links';
  let edits = 0;
  for (const name of pages.filter((name) => name !== 'index.html')) {
    await page.goto(base + name, { waitUntil: 'load' });
    const edit = await page.evaluate(() => document.querySelector('a[aria-label="Suggest an edit"]')?.href);
    const source = edit?.match(/\/edit\/[^/]+\/(.+)$/)?.[1];
    if (!source) { fail(`${name}: no "Suggest an edit" link naming a file (${edit})`); continue; }
    if (!source.startsWith('guide/src/')) { fail(`${name}: the edit link names ${source}, not a file of guide/src/`); continue; }
    try { await stat(join(repoRoot, decodeURIComponent(source))); edits++; } catch { fail(`${name}: the edit link names ${source}, which is not in the repository`); }
  }
  console.log(`edit links: ${edits} of ${pages.length - 1} chapters name their source file`);

  current = 'layout';
  await selfTest(browser, fail);
  const wideTables = await checkWidths(browser, base, [...pages, 'print.html'], fail);
  console.log(`layout: ${wideTables} tables wider than a 390 px screen, each scrolling in its own box`);
} finally {
  await browser.close();
  server.close();
}
const total = failures.length;
console.log(total === 0 ? 'guide browser check: 0 failed' : `guide browser check: ${total} failed`);
process.exit(total === 0 ? 0 : 1);
