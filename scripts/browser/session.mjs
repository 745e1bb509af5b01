// What every browser check of a built book starts and ends with: its arguments (the HTML directory
// and the sub-path the site is served under), the list of failures, the site served on loopback
// (site.mjs), Chromium launched without sandbox, GPU or background traffic, a page that fails on
// any console error, page error or request leaving the site, and the summary line and exit code.
// Also the checks both books share: the chapter pages, the search, and the layout at every width.
//
//   const site = await openSite('check.mjs', 'BOOK_HTML_DIR');
//   try { ... site.fail('what went wrong') ... } finally { await site.close(); }
//   site.exit('browser check');   // prints "browser check: N failed", exits 0 or 1
import { chromium } from 'playwright-core';
import { readdir } from 'node:fs/promises';
import { checkWidths, selfTest } from './layout.mjs';
import { serveUnder } from './site.mjs';

/// Chromium as every check runs it: CHROMIUM names a browser already there (CI runners ship
/// Google Chrome), else Debian's; nothing that would reach the network on its own.
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

/// A list of failures: `fail(what)` records one and prints it as it happens.
export function failures(prefix = '') {
  const list = [];
  const fail = (what) => { list.push(what); console.error(`FAIL ${prefix}${what}`); };
  return { list, fail };
}

/// Reads `BOOK_HTML_DIR [SITE_PATH]` from the command line (exit 2 on a usage error), serves the
/// book under SITE_PATH, launches Chromium and opens one page that fails on a console error, a page
/// error or a request outside the site. `ignoreConsole(msg)` lets a check expect an error it
/// provokes. `site.at(name)` says which page later failures are about.
export async function openSite(script, dirName, { ignoreConsole = () => false } = {}) {
  const root = process.argv[2];
  const sitePath = process.argv[3] ?? '/';
  if (!root || !sitePath.startsWith('/') || !sitePath.endsWith('/')) {
    console.error(`usage: node ${script} ${dirName} [SITE_PATH]  (SITE_PATH starts and ends with /)`);
    process.exit(2);
  }
  const { list, fail } = failures();
  const { server, base } = await serveUnder(root, sitePath, (url) => fail(`request outside the site's sub-path ${sitePath}: ${url}`));
  console.log(`serving ${root} at ${base}`);
  const browser = await launchBrowser();
  const page = await browser.newPage();
  let current = '';
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !ignoreConsole(msg)) fail(`${current}: console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => fail(`${current}: page error: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(base) && !url.startsWith('data:')) fail(`${current}: request leaves the site: ${url}`);
  });
  return {
    root, sitePath, base, browser, page, fail, failures: list,
    at(name) { current = name; },
    async close() { await browser.close(); server.close(); },
    exit(label) {
      console.log(list.length === 0 ? `${label}: 0 failed` : `${label}: ${list.length} failed`);
      process.exit(list.length === 0 ? 0 : 1);
    },
  };
}

/// The HTML pages of a built book that are chapters: not the 404 page, the print view or the
/// table of contents mdBook writes beside them.
export async function chapterFiles(root) {
  return (await readdir(root))
    .filter((name) => name.endsWith('.html') && !['404.html', 'print.html', 'toc.html'].includes(name))
    .sort();
}

/// Opens every chapter once, failing on an HTTP error; `inspect(name)` runs on each loaded page.
export async function visitChapters(site, names, inspect) {
  for (const name of names) {
    site.at(name);
    const response = await site.page.goto(site.base + name, { waitUntil: 'load' });
    if (!response.ok()) site.fail(`${name}: HTTP ${response.status()}`);
    await inspect(name);
  }
}

/// Types `term` into mdBook's search as a reader would (it searches on key events), and opens the
/// first result: it must be a page of the site other than the front page.
export async function checkSearch(site, term) {
  const { page, base, fail } = site;
  site.at('search');
  await page.goto(base + 'index.html');
  await page.click('#mdbook-search-toggle');
  await page.locator('#mdbook-searchbar').pressSequentially(term);
  try {
    await page.waitForSelector('#mdbook-searchresults li', { timeout: 10000 });
    const hits = await page.locator('#mdbook-searchresults li').count();
    await page.locator('#mdbook-searchresults li a').first().click();
    await page.waitForLoadState('load');
    if (!page.url().startsWith(base) || page.url() === `${base}index.html`) fail(`search: the first result opened ${page.url()}`);
    else console.log(`search "${term}": ${hits} results, the first opened ${page.url().slice(base.length)}`);
  } catch (err) {
    fail(`search for "${term}": ${err.message.split('\n')[0]}`);
  }
}

/// layout.mjs at every width, after its self-test, on `names` and the print view.
export async function checkLayout(site, names) {
  site.at('layout');
  await selfTest(site.browser, site.fail);
  const wideTables = await checkWidths(site.browser, site.base, [...names, 'print.html'], site.fail);
  console.log(`layout: ${wideTables} tables wider than a 390 px screen, each scrolling in its own box`);
}
