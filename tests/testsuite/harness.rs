//! A book with the real harness crate (`snippets/`): top-level `.await` and `?`, the prelude in
//! scope, and the harness's attributes and artifacts.

use crate::support::{book, harness_dir};

#[test]
fn harness_snippets_run_against_the_test_server() {
    let book_toml = format!(
        "[preprocessor.snippets]\nharness = {:?}\ndefault-attributes = [\"revision=2025-11-25\"]\ntimeout = 60\n",
        harness_dir().display().to_string()
    );
    let book = book(&[
        ("book.toml", &book_toml),
        (
            "src/a.md",
            r#"```rust
let server = TestServer::start();
let client = server.connect_rmcp().await?;
let tools = client.list_all_tools().await?;
println!("tools listed: {}", !tools.is_empty());
```

```text,output
tools listed: true
```

```rust
let n: u32 = "x".parse()?;
```
"#,
        ),
    ]);
    let output = book.test(&["--quiet"]);
    output.code(1);
    output.stdout_contains("src/a.md:12 (failed at run time, src_a_md_2)");
    output.stdout_contains("invalid digit found in string");
    output.stdout_contains("1 passed, 1 failed\n");
}
