// The built book served the way GitHub Pages serves a project site: under a sub-path
// (https://OWNER.github.io/REPO/), with 404.html answering every missing URL, and the checks that
// only make sense there: the 404 page at any depth, the print view, and the edit links.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.json': 'application/json' };

/// Serves ROOT at http://127.0.0.1:PORT/SITE_PATH (SITE_PATH starts and ends with '/'). A URL
/// outside SITE_PATH is an error the caller hears about through `outside`.
export async function serveUnder(root, sitePath, outside) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x').pathname;
    if (!url.startsWith(sitePath)) {
      outside(url);
      res.writeHead(404);
      res.end('outside the site');
      return;
    }
    const path = normalize(decodeURIComponent(url.slice(sitePath.length))).replace(/^(\.\.[/\\])+/, '');
    let file = join(root, path);
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(await readFile(join(root, '404.html')));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${server.address().port}${sitePath}` };
}

/// The URL, under the site, that the 404 check asks for.
export const missingPage = 'no/such/chapter/page.html';

/// The 404 page, the print view and the edit links. `chapters` are the chapter pages' file names;
/// `repoRoot` is where the sources the edit links name must exist.
export async function checkSite(page, base, chapters, repoRoot, fail) {
  await check404(page, base, fail);
  await checkPrint(page, base, fail, { headings: chapters.length, outputs: 1 });
  await checkEditLinks(page, base, chapters, repoRoot, fail, { repository: true });
}

/// Collects the responses with an HTTP error while `load` runs.
async function failedLoadsOf(page, load) {
  const failed = [];
  const onResponse = (response) => { if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`); };
  page.on('response', onResponse);
  try {
    return { response: await load(), failed };
  } finally {
    page.off('response', onResponse);
  }
}

/// 404, two directories below the site root: the page must still find its styles and scripts
/// (site-url), and its links must lead back into the book.
export async function check404(page, base, fail) {
  const missing = base + missingPage;
  const { response, failed } = await failedLoadsOf(page, () => page.goto(missing, { waitUntil: 'load' }));
  const notFound = failed.filter((load) => !load.endsWith(missing));
  if (response.status() !== 404) fail(`404 page: HTTP ${response.status()} for ${missing}`);
  if (notFound.length) fail(`404 page: ${notFound.length} resources failed to load, e.g. ${notFound[0]}`);
  if (!/Page not found/.test(await page.locator('main').innerText())) fail('404 page: does not say "Page not found"');
  const styled = await page.evaluate(() => [...document.styleSheets].some((s) => s.href && /chrome.*\.css$/.test(s.href)));
  if (!styled) fail('404 page: mdBook stylesheet not loaded');
  const introduction = page.locator('main a', { hasText: 'the introduction' });
  if (await introduction.count() === 0) {
    fail('404 page: no link to the introduction');
  } else {
    await introduction.first().click();
    await page.waitForLoadState('load');
    if (page.url() !== `${base}introduction.html`) fail(`404 page: the introduction link leads to ${page.url()}`);
  }
  console.log(`404 page at ${missing}: ${notFound.length} failed loads`);
}

/// The print view: one page with every chapter, in order: at least `headings` chapter headings
/// and `outputs` snippet outputs, and every resource loaded.
export async function checkPrint(page, base, fail, { headings, outputs }) {
  const { response, failed } = await failedLoadsOf(page, () => page.goto(`${base}print.html`, { waitUntil: 'load' }));
  if (!response.ok()) fail(`print.html: HTTP ${response.status()}`);
  if (failed.length) fail(`print.html: ${failed.length} resources failed to load, e.g. ${failed[0]}`);
  const printed = await page.evaluate(() => ({
    headings: document.querySelectorAll('main h1').length,
    outputs: document.querySelectorAll('main .mdbook-snippets-stdout').length,
  }));
  if (printed.headings < headings) fail(`print.html: ${printed.headings} chapter headings for ${headings} chapters`);
  if (printed.outputs < outputs) fail(`print.html: ${printed.outputs} snippet outputs, fewer than the ${outputs} expected`);
  console.log(`print.html: ${printed.headings} chapter headings, ${printed.outputs} outputs`);
}

/// Every chapter links to the editor for its own source file (under `under`, when given), which
/// exists under `repoRoot`; with `repository`, to the git repository too.
export async function checkEditLinks(page, base, chapters, repoRoot, fail, { under = '', repository = false } = {}) {
  let edits = 0;
  for (const name of chapters) {
    await page.goto(base + name, { waitUntil: 'load' });
    const links = await page.evaluate(() => ({
      repository: document.querySelector('a[aria-label="Git repository"]')?.href,
      edit: document.querySelector('a[aria-label="Suggest an edit"]')?.href,
    }));
    if (repository && !links.repository) fail(`${name}: no link to the git repository`);
    if (!links.edit) { fail(`${name}: no "Suggest an edit" link`); continue; }
    const source = links.edit.match(/\/edit\/[^/]+\/(.+)$/)?.[1];
    if (!source) { fail(`${name}: edit link ${links.edit} names no file`); continue; }
    if (!source.startsWith(under)) { fail(`${name}: the edit link names ${source}, not a file of ${under}`); continue; }
    try {
      await stat(join(repoRoot, decodeURIComponent(source)));
      edits++;
    } catch {
      fail(`${name}: edit link names ${source}, which is not in the repository`);
    }
  }
  console.log(`edit links: ${edits} of ${chapters.length} chapters name their source file`);
}
