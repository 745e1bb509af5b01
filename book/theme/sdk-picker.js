// The SDK version picker: the reader says which release of each SDK they use, and every version
// mark of the book says whether it holds for that release. Progressive enhancement: without this
// script the pickers stay hidden and every mark reads as the plain text it is.
//
// The markup: `<select data-sdk-picker="KEY" data-sdk="NAME">` (generated from
// interop/history.json by interop/render_picker.py into book/generated/sdk-picker.md, inside a
// `<div class="sdk-picker" hidden>`), whose option values are releases; and, anywhere in a chapter,
// `<span class="sdk-mark" data-since="NAME VERSION">` and/or `data-until="NAME VERSION"` (the
// last release the statement holds for), NAME being a select's `data-sdk` (`rmcp`, `mcp`,
// `typescript`, or an agent framework's name such as `fastmcp`, whose releases differ). Versions compare numerically, part by part (3.11.0 is after 3.6.0), a
// pre-release before its release.
//
// What a mark gets: `data-applies="true"` when the chosen release of its SDK is at or after its
// `data-since` and at or before its `data-until`, `"false"` otherwise, and a `title` saying why.
// A mark whose SDK has no release chosen, or whose attribute does not parse, gets no
// `data-applies` (and reads as plain text, as without the script): the book claims nothing for a
// release it was not told. sdk-picker.css shows `"false"` struck through with a note.
//
// The choice is kept in localStorage (one key per SDK, by its mark name), so it holds on every page, in
// print.html, after a reload, and in another window of the book (the `storage` event); where
// storage is refused it lasts as long as the page.
(function sdkPicker() {
    'use strict';
    const storagePrefix = 'mdbook-snippets.sdk-release.';
    const remembered = new Map();

    function storedRelease(key) {
        try {
            return window.localStorage.getItem(storagePrefix + key) ?? remembered.get(key) ?? '';
        } catch {
            return remembered.get(key) ?? '';
        }
    }
    function storeRelease(key, version) {
        remembered.set(key, version);
        try {
            if (version === '') window.localStorage.removeItem(storagePrefix + key);
            else window.localStorage.setItem(storagePrefix + key, version);
        } catch {
            // Kept in memory only.
        }
    }

    // "1.2.3" or "1.2.3-beta.1" -> [numbers, pre-release or null]; null when it is no version.
    function parseVersion(text) {
        const found = /^(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?$/.exec(text);
        if (!found) return null;
        return { parts: found[1].split('.').map(Number), pre: found[2] ?? null };
    }
    // < 0, 0, > 0 as a is before, the same as, after b. Missing parts count as 0 (3.6 = 3.6.0).
    function compareVersions(a, b) {
        const length = Math.max(a.parts.length, b.parts.length);
        for (let index = 0; index < length; index++) {
            const difference = (a.parts[index] ?? 0) - (b.parts[index] ?? 0);
            if (difference !== 0) return difference;
        }
        if (a.pre === b.pre) return 0;
        if (a.pre === null) return 1;
        if (b.pre === null) return -1;
        return a.pre < b.pre ? -1 : 1;
    }
    // "rmcp 3.6.0" -> { sdk, text, version }; null when it does not parse.
    function parseBound(text) {
        const found = /^\s*(\S+)\s+(\S+)\s*$/.exec(text ?? '');
        const version = found && parseVersion(found[2]);
        return version ? { sdk: found[1], text: found[2], version } : null;
    }

    const selects = [...document.querySelectorAll('select[data-sdk-picker]')];
    // A select's SDK as the marks name it (its `data-sdk`): the choice is stored under that name,
    // so a page without a picker finds it too.
    const sdkOf = (select) => select.dataset.sdk || select.dataset.sdkPicker;

    // The chosen release of every SDK the page's marks name: name -> { text, version }.
    function chosenReleases(marks) {
        const chosen = new Map();
        for (const mark of marks) {
            for (const bound of [mark.dataset.since, mark.dataset.until]) {
                const name = parseBound(bound)?.sdk;
                if (name === undefined || chosen.has(name)) continue;
                const text = storedRelease(name);
                const version = parseVersion(text);
                if (version) chosen.set(name, { text, version });
            }
        }
        return chosen;
    }

    // The verdict on one mark for the chosen releases: { applies, why } or null (no verdict).
    function verdict(mark, chosen) {
        const since = mark.hasAttribute('data-since') ? parseBound(mark.dataset.since) : undefined;
        const until = mark.hasAttribute('data-until') ? parseBound(mark.dataset.until) : undefined;
        if (since === null || until === null || (since === undefined && until === undefined)) return null;
        const bounds = [since, until].filter(Boolean);
        const yours = bounds.map((bound) => chosen.get(bound.sdk));
        if (yours.some((release) => release === undefined)) return null;
        const fails = [];
        if (since && compareVersions(chosen.get(since.sdk).version, since.version) < 0) fails.push(`holds since ${since.sdk} ${since.text}`);
        if (until && compareVersions(chosen.get(until.sdk).version, until.version) > 0) fails.push(`holds until ${until.sdk} ${until.text}`);
        const releases = [...new Set(bounds.map((bound) => `${bound.sdk} ${chosen.get(bound.sdk).text}`))].join(', ');
        return fails.length === 0
            ? { applies: true, why: `Holds for your release (${releases}).` }
            : { applies: false, why: `Not in your release (${releases}): ${fails.join(' and ')}.` };
    }

    function applyAll() {
        const marks = [...document.querySelectorAll('.sdk-mark')];
        const chosen = chosenReleases(marks);
        for (const mark of marks) {
            const result = verdict(mark, chosen);
            if (result === null) {
                mark.removeAttribute('data-applies');
                mark.removeAttribute('title');
            } else {
                mark.dataset.applies = String(result.applies);
                mark.title = result.why;
            }
        }
    }

    function showChoices() {
        for (const select of selects) {
            const stored = storedRelease(sdkOf(select));
            const listed = [...select.options].some((option) => option.value === stored);
            select.value = listed ? stored : '';
        }
    }

    for (const select of selects) {
        select.addEventListener('change', () => {
            storeRelease(sdkOf(select), select.value);
            showChoices();
            applyAll();
        });
    }
    for (const picker of document.querySelectorAll('.sdk-picker')) picker.hidden = false;
    showChoices();
    applyAll();

    // Another window of the book changed a choice.
    window.addEventListener('storage', (event) => {
        if (event.key !== null && !event.key.startsWith(storagePrefix)) return;
        showChoices();
        applyAll();
    });
})();
