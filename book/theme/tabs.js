// Language tabs: one example written in several languages shows as one tab set, and the reader's
// choice of language holds on every page and on the next visit. Progressive enhancement: without
// this script (or with scripts off) the page is unchanged and the blocks show one after another.
//
// The markup rule (README, "Using the verifier on your own book"): an empty
// `<div class="snippet-tabs"></div>` directly before the group, then the group's snippets, each a
// code block (`<pre><code class="language-L">`) followed by its output blocks, with nothing but
// whitespace in between. An output block is what the verifier puts under a snippet
// (`div.mdbook-snippets-output`, `div.mdbook-snippets-failure`) or an expected-output block
// (```` ```text,output ````, rendered `<pre><code class="language-text output">`) left as written.
// The group ends at the first other element (a paragraph, a heading, another marker) or at a code
// block whose language the group already has. A group with fewer than two languages is left alone.
//
// The script only moves the page's own nodes into the tab set (never copies them), so mdBook's
// copy and play buttons and highlight.js keep working inside panels. A search hit in another
// language's panel shows that panel. The print view
// (print.html) is left alone, so it shows every language; printing a chapter page shows every
// panel through tabs.css.
(function snippetTabs() {
    'use strict';
    const storageKey = 'mdbook-snippets.language';
    const labels = { rust: 'Rust', python: 'Python', typescript: 'TypeScript', javascript: 'JavaScript',
        ts: 'TypeScript', js: 'JavaScript', py: 'Python', go: 'Go', java: 'Java', csharp: 'C#', kotlin: 'Kotlin' };

    // Storage may be missing or refuse access (privacy settings, sandboxed frames): the choice then
    // lasts as long as the page.
    let remembered = null;
    function storedLanguage() {
        try {
            return window.localStorage.getItem(storageKey) ?? remembered;
        } catch {
            return remembered;
        }
    }
    function storeLanguage(language) {
        remembered = language;
        try {
            window.localStorage.setItem(storageKey, language);
        } catch {
            // Kept in memory only.
        }
    }

    // The language of a code block, or null when `element` is not one (expected-output blocks
    // are output, not code).
    function codeLanguage(element) {
        if (element.tagName !== 'PRE') return null;
        // mdBook puts its buttons before the <code>, so look for it among the children.
        const code = element.querySelector(':scope > code');
        if (!code || code.classList.contains('output')) return null;
        const language = [...code.classList].find((name) => name.startsWith('language-'));
        return language ? language.slice('language-'.length) : null;
    }
    function isOutput(element) {
        if (element.tagName === 'DIV') {
            return element.classList.contains('mdbook-snippets-output')
                || element.classList.contains('mdbook-snippets-failure');
        }
        return element.tagName === 'PRE' && element.querySelector(':scope > code.output') !== null;
    }
    // The next sibling element if only whitespace separates it from `node` (a comment or any
    // other text in between ends the group).
    function nextAdjacent(node) {
        for (let next = node.nextSibling; next; next = next.nextSibling) {
            if (next.nodeType === Node.ELEMENT_NODE) return next;
            if (next.nodeType !== Node.TEXT_NODE || next.textContent.trim() !== '') return null;
        }
        return null;
    }

    // The group after `marker`: [{ language, nodes }], in page order.
    function collectGroup(marker) {
        const panels = [];
        for (let element = nextAdjacent(marker); element; element = nextAdjacent(element)) {
            const language = codeLanguage(element);
            if (language !== null) {
                if (panels.some((panel) => panel.language === language)) break;
                panels.push({ language, nodes: [element] });
            } else if (isOutput(element) && panels.length > 0) {
                panels[panels.length - 1].nodes.push(element);
            } else {
                break;
            }
        }
        return panels;
    }

    const tabSets = [];
    let counter = 0;

    function build(marker) {
        const panels = collectGroup(marker);
        if (panels.length < 2) {
            console.warn('snippet-tabs: a marker not followed by code blocks of two or more languages', marker);
            return;
        }
        const id = `snippet-tabs-${++counter}`;
        const list = document.createElement('div');
        list.className = 'snippet-tabs-list';
        list.setAttribute('role', 'tablist');
        list.setAttribute('aria-label', 'Language');
        const set = { tabs: [], panels: [] };
        panels.forEach(({ language, nodes }, index) => {
            const label = labels[language] ?? language.charAt(0).toUpperCase() + language.slice(1);
            const tab = document.createElement('button');
            tab.type = 'button';
            tab.className = 'snippet-tabs-tab';
            tab.id = `${id}-tab-${index}`;
            tab.textContent = label;
            tab.dataset.language = language;
            tab.setAttribute('role', 'tab');
            tab.setAttribute('aria-controls', `${id}-panel-${index}`);
            const panel = document.createElement('div');
            panel.className = 'snippet-tabs-panel';
            panel.id = `${id}-panel-${index}`;
            panel.dataset.language = language;
            panel.dataset.label = label;
            panel.tabIndex = 0;
            panel.setAttribute('role', 'tabpanel');
            panel.setAttribute('aria-labelledby', tab.id);
            // Moved, not copied: listeners and highlighting stay with the nodes.
            for (const node of nodes) panel.appendChild(node);
            tab.addEventListener('click', () => choose(language, set));
            list.appendChild(tab);
            set.tabs.push(tab);
            set.panels.push(panel);
        });
        list.addEventListener('keydown', (event) => onKey(event, set));
        marker.append(list, ...set.panels);
        marker.classList.add('snippet-tabs-ready');
        tabSets.push(set);
    }

    // Shows `language` in `set`, or its first tab when it has no such language.
    function show(set, language) {
        let selected = set.tabs.findIndex((tab) => tab.dataset.language === language);
        if (selected < 0) selected = 0;
        set.tabs.forEach((tab, index) => {
            const on = index === selected;
            tab.setAttribute('aria-selected', String(on));
            tab.tabIndex = on ? 0 : -1;
            set.panels[index].hidden = !on;
        });
    }

    // A reader's choice: every tab set of the page follows it, and it is remembered. The set the
    // reader clicked stays where it was on the screen while the sets above it change height.
    function choose(language, origin) {
        const before = origin.tabs[0].getBoundingClientRect().top;
        storeLanguage(language);
        for (const set of tabSets) show(set, language);
        const after = origin.tabs[0].getBoundingClientRect().top;
        if (after !== before) window.scrollBy(0, after - before);
    }

    // Arrows, Home and End move between tabs and select (WAI-ARIA tabs, automatic activation).
    // mdBook turns the page on ArrowLeft/ArrowRight at the document: keep those keys here.
    function onKey(event, set) {
        if (event.altKey || event.ctrlKey || event.metaKey) return;
        const current = set.tabs.indexOf(document.activeElement);
        if (current < 0) return;
        const last = set.tabs.length - 1;
        const target = { ArrowRight: current === last ? 0 : current + 1, ArrowLeft: current === 0 ? last : current - 1,
            Home: 0, End: last }[event.key];
        if (target === undefined) return;
        event.preventDefault();
        event.stopPropagation();
        choose(set.tabs[target].dataset.language, set);
        set.tabs[target].focus();
    }

    if (/\/print\.html$/.test(window.location.pathname)) return;
    document.querySelectorAll('div.snippet-tabs').forEach(build);
    const language = storedLanguage();
    for (const set of tabSets) show(set, language);
    revealSearchHit();
    revealFailures();

    // Under `mdbook serve` the verifier shows a failed snippet's report under it: a tab set that
    // holds one shows that panel and marks its tab, so the author cannot miss it.
    function revealFailures() {
        for (const set of tabSets) {
            const failed = set.panels.filter((panel) => panel.querySelector('.mdbook-snippets-failure'));
            for (const panel of failed) set.tabs[set.panels.indexOf(panel)].classList.add('snippet-tabs-failed');
            if (failed.length > 0 && failed.every((panel) => panel.hidden)) show(set, failed[0].dataset.language);
        }
    }

    // A search result opens the page with `?highlight=WORDS`, which mdBook marks in the text: a
    // tab set whose shown panel lacks every word shows the first panel that has one, for this
    // visit only (the reader's choice stays as it was).
    function revealSearchHit() {
        const highlight = new URLSearchParams(window.location.search).get('highlight');
        const words = (highlight ?? '').toLowerCase().split(' ').filter((word) => word !== '');
        if (words.length === 0) return;
        const holds = (panel) => words.some((word) => panel.textContent.toLowerCase().includes(word));
        for (const set of tabSets) {
            const shownPanel = set.panels.find((panel) => !panel.hidden);
            const hit = set.panels.find(holds);
            if (hit && !holds(shownPanel)) show(set, hit.dataset.language);
        }
    }

    // Another window of the book changed the choice.
    window.addEventListener('storage', (event) => {
        if (event.key !== storageKey || event.newValue === null) return;
        for (const set of tabSets) show(set, event.newValue);
    });
})();
