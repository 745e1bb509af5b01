//! What the pipeline decides about one snippet before building it: where it goes in the
//! generated crate (see `placement`), its edition, the harness attributes and timeout of its
//! run, and its cache key, which hashes the file generated for it (so the plan is made here,
//! beside the generator, and `plan/` never names `build/`).

use std::time::Duration;

use crate::build::generate::{PlannedSnippet, module_file, snippet_file};
use crate::config::Config;
use crate::plan::placement::placement;
use crate::plan::{Cache, CrateSettings};
use crate::source::{Located, merge_harness_attributes};

/// What the pipeline needs to know about one snippet to build, run and cache it.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub index: usize,
    pub planned: PlannedSnippet,
    pub harness_attributes: String,
    pub timeout: Duration,
    pub cache_key: String,
}

/// The edition the book names for its snippets (`edition` in its table, else `[rust] edition`),
/// else its harness crate's, else that of the package the book is (`harness = "."`); `None`
/// means mdBook's default, 2015.
pub(crate) fn named_edition<'a>(
    config: &'a Config,
    settings: &'a CrateSettings,
) -> Option<&'a str> {
    config
        .edition
        .as_deref()
        .or_else(|| settings.harness_parts().and_then(|harness| harness.edition))
        .or(settings.package_edition.as_deref())
}

/// Plans `located` (the `index`-th snippet of the book).
pub(crate) fn plan(
    located: &Located,
    index: usize,
    config: &Config,
    settings: &CrateSettings,
    cache: &Cache,
) -> Plan {
    let harness = settings.harness_parts();
    let snippet = &located.snippet;
    let attributes = &snippet.attributes;
    let edition = attributes.edition.clone().unwrap_or_else(|| {
        named_edition(config, settings)
            .unwrap_or(crate::config::DEFAULT_EDITION)
            .to_owned()
    });
    let harness_attributes =
        merge_harness_attributes(&config.default_attributes, &attributes.harness).join(",");
    let compile_fail = attributes.compile_fail.is_some();
    let planned = PlannedSnippet {
        id: snippet.id.clone(),
        code: snippet.code.clone(),
        placement: placement(
            &snippet.code,
            &edition,
            compile_fail,
            attributes.test_harness,
        )
        .standalone(attributes.standalone_crate),
        edition,
        no_run: attributes.no_run || compile_fail,
    };
    let file = snippet_file(&planned, harness);
    let mode = match (&attributes.compile_fail, attributes.no_run) {
        (Some(codes), _) => format!("compile_fail {codes:?}"),
        (None, true) => "no_run".to_owned(),
        (None, false) => "run".to_owned(),
    };
    let placement = format!("{:?}", planned.placement);
    // rustc's messages name the generated file and module (`src_ch1_md_3`), and the record is
    // located through them, so the same code under another id is another key.
    let module = module_file(&planned);
    let timeout = attributes
        .timeout_secs
        .map_or(config.timeout, Duration::from_secs);
    // The timeout too: a timed-out run is cached, and is no verdict under another timeout.
    let cache_key = cache.key(&[
        &module.to_string_lossy(),
        &file,
        &planned.edition,
        &harness_attributes,
        &mode,
        &placement,
        &format!("timeout {}", timeout.as_nanos()),
    ]);
    Plan {
        index,
        planned,
        harness_attributes,
        timeout,
        cache_key,
    }
}
