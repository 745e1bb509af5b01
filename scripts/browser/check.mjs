// Opens the built book in headless Chromium, as a reader would, and checks what they see:
// every page loads with no console error and no request leaving loopback; the chapter pages
// show snippet outputs, wire transcripts and sequence diagrams produced by the verifier; and
// the search finds "notifications/cancelled".
//
// Usage: node check.mjs BOOK_HTML_DIR
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const root = process.argv[2];
if (!root) {
  console.error('usage: node check.mjs BOOK_HTML_DIR');
  process.exit(2);
}
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.json': 'application/json' };

const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(root, path.endsWith('/') ? path + 'index.html' : path);
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end('not found');
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/`;

const failures = [];
const fail = (what) => { failures.push(what); console.error(`FAIL ${what}`); };

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
    if (!url.startsWith(base) && !url.startsWith('data:')) fail(`${current}: request leaves the book: ${url}`);
  });

  const pages = (await readdir(root)).filter((f) => f.endsWith('.html') && f !== '404.html' && f !== 'print.html' && f !== 'toc.html');
  let outputs = 0, transcripts = 0, diagrams = 0;
  const transcriptPages = [];
  for (const name of pages.sort()) {
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
  } catch {
    fail('search for "notifications/cancelled" found nothing');
  }
} finally {
  await browser.close();
  server.close();
}
const total = failures.length;
console.log(total === 0 ? 'browser check: 0 failed' : `browser check: ${total} failed`);
process.exit(total === 0 ? 0 : 1);
