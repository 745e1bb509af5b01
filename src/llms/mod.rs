//! The `llms` renderer (`[output.llms] command = "mdbook-snippets llms"`): `llms.txt`, an index of
//! the chapters, and `llms-full.txt`, every chapter as a reader sees it, for coding assistants
//! (<https://llmstxt.org>). mdBook 0.5 passes the renderer's context as JSON on stdin (read with
//! `mdbook-renderer`); the chapters arrive after the preprocessors, so with `mdbook-snippets`
//! each snippet's verified output is already beside it as a fenced `text` block.
//!
//! What a reader sees is made in `text.rs` (sans-IO); this module is the edge: the context, the
//! site's base URL, and where the files go. With an `[output.html]` they go into the HTML
//! renderer's directory (mdBook runs renderers in name order, `html` before `llms`), to be
//! published beside the pages; else into the renderer's own destination.

mod text;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use mdbook_renderer::RenderContext;
use mdbook_renderer::book::BookItem;

pub(crate) use text::{Hidden, chapter_text};

/// Runs the renderer on the context mdBook writes to stdin.
pub(crate) fn run() -> anyhow::Result<ExitCode> {
    let context = RenderContext::from_json(std::io::stdin().lock())
        .context("reading the renderer context mdBook passes on stdin")?;
    let (directory, files) = render(&context)?;
    std::fs::create_dir_all(&directory)
        .with_context(|| format!("creating {}", directory.display()))?;
    for (name, content) in files {
        let path = directory.join(name);
        std::fs::write(&path, content).with_context(|| format!("writing {}", path.display()))?;
    }
    eprintln!(
        "mdbook-snippets llms: wrote llms.txt and llms-full.txt in {}",
        directory.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Where the files go, and the files.
fn render(context: &RenderContext) -> anyhow::Result<(PathBuf, [(&'static str, String); 2])> {
    let config = &context.config;
    let site_url = config
        .get::<String>("output.llms.site-url")
        .ok()
        .flatten()
        .or_else(|| config.get::<String>("output.html.site-url").ok().flatten())
        .unwrap_or_default();
    let base = match site_url.is_empty() || site_url.ends_with('/') {
        true => site_url,
        false => site_url + "/",
    };
    let mut directory = context.destination.clone();
    if config
        .get::<toml::Value>("output.html")
        .ok()
        .flatten()
        .is_some()
    {
        directory = directory.with_file_name("html");
        if !directory.join("index.html").is_file() {
            bail!(
                "no HTML pages in {} to publish beside (the html renderer runs first)",
                directory.display()
            );
        }
    }
    let hidden = Hidden::from_config(config);
    let title = config
        .book
        .title
        .clone()
        .unwrap_or_else(|| "Book".to_owned());
    let description = config.book.description.clone();
    let mut header = vec![format!("# {title}"), String::new()];
    if let Some(description) = &description {
        header.extend([format!("> {description}"), String::new()]);
    }
    let mut index: Vec<(String, Vec<String>)> = vec![("Chapters".to_owned(), Vec::new())];
    let mut full = vec![header.join("\n").trim_end().to_owned()];
    for item in context.book.iter() {
        match item {
            BookItem::PartTitle(title) => index.push((title.clone(), Vec::new())),
            BookItem::Chapter(chapter) => {
                let Some(path) = &chapter.path else { continue };
                let path = path.to_string_lossy().replace('\\', "/");
                let depth = chapter.parent_names.len();
                let page = text::page_of(&path);
                let entry = format!("{}- [{}]({base}{page})", "  ".repeat(depth), chapter.name);
                index.last_mut().expect("one section").1.push(entry);
                let text = chapter_text(&chapter.content, &path, &base, &hidden);
                full.push(text.trim_matches('\n').to_owned());
            }
            BookItem::Separator => {}
        }
    }
    let mut lines = header;
    lines.push(format!(
        "The whole book in one Markdown file: [llms-full.txt]({base}llms-full.txt)."
    ));
    index.push((
        "Optional".to_owned(),
        vec![format!(
            "- [llms-full.txt]({base}llms-full.txt): every chapter above, in order, in one file"
        )],
    ));
    for (title, links) in index.into_iter().filter(|(_, links)| !links.is_empty()) {
        lines.extend([String::new(), format!("## {title}"), String::new()]);
        lines.extend(links);
    }
    let llms = lines.join("\n") + "\n";
    let llms_full = full.join("\n\n") + "\n";
    Ok((
        directory,
        [("llms.txt", llms), ("llms-full.txt", llms_full)],
    ))
}
