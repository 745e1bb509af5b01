// Opens the built book in headless Chromium, as a reader would, and checks what they see:
// the book is served under a project sub-path, as GitHub Pages serves it; every page loads with
// no console error and no request leaving the site; the chapter pages show snippet outputs, wire
// transcripts and sequence diagrams produced by the verifier; the search finds
// "notifications/cancelled" and its first result opens; the 404 page (site.mjs) works at any depth;
// the print view has every chapter; every chapter links to its source; and at 390 px and
// 1280 px (layout.mjs) prose never scrolls sideways, wide tables scroll in their own box and
// diagrams scale; and the short answer's case table (case-table.mjs) shows every row without
// sideways scrolling at both widths, as cards on a phone. A page mdBook writes for
// `[output.html.redirect]` (an old address) is not a chapter: it must point at a page the site
// has, and is not opened (it has no favicon link, so Chromium would ask the server's root).
//
// Usage: node check.mjs BOOK_HTML_DIR [SITE_PATH]   (SITE_PATH like /REPO/, default /)
import { chromium } from 'playwright-core';
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { caseTableSelfTest, checkCaseTable } from './case-table.mjs';
import { checkWidths, selfTest } from './layout.mjs';
import { checkSite, missingPage, serveUnder } from './site.mjs';

const root = process.argv[2];
const sitePath = process.argv[3] ?? '/';
if (!root || !sitePath.startsWith('/') || !sitePath.endsWith('/')) {
  console.error('usage: node check.mjs BOOK_HTML_DIR [SITE_PATH]  (SITE_PATH starts and ends with /)');
  process.exit(2);
}
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const failures = [];
const fail = (what) => { failures.push(what); console.error(`FAIL ${what}`); };
const { server, base } = await serveUnder(root, sitePath, (url) => fail(`request outside the site's sub-path ${sitePath}: ${url}`));
console.log(`serving ${root} at ${base}`);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  let current = '';
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    // The 404 check asks for a missing page on purpose; Chromium logs that answer as an error.
    if (msg.text().includes('status of 404') && msg.location().url.endsWith(missingPage)) return;
    fail(`${current}: console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => fail(`${current}: page error: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(base) && !url.startsWith('data:')) fail(`${current}: request leaves the book: ${url}`);
  });

  const pages = [];
  for (const name of (await readdir(root)).filter((f) => f.endsWith('.html') && f !== '404.html' && f !== 'print.html' && f !== 'toc.html').sort()) {
    const refresh = /<meta http-equiv="refresh" content="0; URL=([^"#]+)/.exec(await readFile(resolve(root, name), 'utf8'));
    if (!refresh) { pages.push(name); continue; }
    if (!existsSync(resolve(root, refresh[1]))) fail(`${name}: redirects to ${refresh[1]}, which the site does not have`);
    console.log(`${name}: redirects to ${refresh[1]}`);
  }
  if (pages.length === 0) fail('no chapter pages found');
  let outputs = 0, transcripts = 0, diagrams = 0;
  const transcriptPages = [];
  for (const name of pages) {
    current = name;
    const response = await page.goto(base + name, { waitUntil: 'load' });
    if (!response.ok()) fail(`${name}: HTTP ${response.status()}`);
    const seen = await page.evaluate(() => ({
      outputs: document.querySelectorAll('.mdbook-snippets-stdout').length,
      transcripts: [...document.querySelectorAll('details > summary')]
        .filter((s) => s.textContent.toLowerCase().includes('transcript')).length,
      diagrams: [...document.querySelectorAll('img')]
        .filter((i) => i.src.startsWith('data:image/svg+xml') && i.complete && i.naturalWidth > 0).length,
    }));
    if (seen.transcripts > 0) transcriptPages.push(name);
    outputs += seen.outputs; transcripts += seen.transcripts; diagrams += seen.diagrams;
    console.log(`${name}: ${seen.outputs} outputs, ${seen.transcripts} transcripts, ${seen.diagrams} diagrams`);
  }
  if (outputs === 0) fail('no page shows a snippet output (.mdbook-snippets-stdout)');
  if (transcripts === 0) fail('no page shows a wire transcript');
  if (diagrams === 0) fail('no page shows a rendered sequence diagram');

  // A transcript must open on a click and show the wire messages.
  current = 'transcript';
  const withTranscript = transcriptPages[0];
  if (withTranscript) {
    await page.goto(base + withTranscript);
    const summary = page.locator('details > summary', { hasText: /transcript/i }).first();
    await summary.click();
    const wire = await summary.locator('xpath=..').locator('pre').first();
    if (!(await wire.isVisible())) fail(`${withTranscript}: transcript does not open on click`);
    else if (!/tools\/call|initialize|server\/discover/.test(await wire.innerText())) fail(`${withTranscript}: transcript shows no MCP message`);
  }

  current = 'search';
  await page.goto(base + 'index.html');
  await page.click('#mdbook-search-toggle');
  // mdBook searches on key events, so type as a reader would.
  await page.locator('#mdbook-searchbar').pressSequentially('notifications/cancelled');
  try {
    await page.waitForSelector('#mdbook-searchresults li', { timeout: 10000 });
    const hits = await page.locator('#mdbook-searchresults li').count();
    console.log(`search "notifications/cancelled": ${hits} results`);
    // A result links under the sub-path, and opens.
    await page.locator('#mdbook-searchresults li a').first().click();
    await page.waitForLoadState('load');
    if (!page.url().startsWith(base) || page.url() === `${base}index.html`) fail(`search: the first result opened ${page.url()}`);
    else console.log(`search: the first result opened ${page.url().slice(base.length)}`);
  } catch (err) {
    fail(`search for "notifications/cancelled": ${err.message.split('\n')[0]}`);
  }

  current = 'site';
  await checkSite(page, base, pages.filter((name) => name !== 'index.html'), repoRoot, fail);

  current = 'layout';
  await selfTest(browser, fail);
  const wideTables = await checkWidths(browser, base, [...pages, 'print.html'], fail);
  console.log(`layout: ${wideTables} tables wider than a 390 px screen, each scrolling in its own box`);

  current = 'case table';
  await caseTableSelfTest(browser, fail);
  await checkCaseTable(browser, base, 'short-answer.html', fail);
} finally {
  await browser.close();
  server.close();
}
const total = failures.length;
console.log(total === 0 ? 'browser check: 0 failed' : `browser check: ${total} failed`);
process.exit(total === 0 ? 0 : 1);
