use super::*;

fn target(name: &str, src_path: &str) -> String {
    format!(
        r#"{{"kind":["bin"],"crate_types":["bin"],"name":"{name}","src_path":"{src_path}","edition":"2021","doc":false,"doctest":false,"test":false}}"#
    )
}

#[test]
fn errors_and_executables_of_our_package_only() {
    let crate_dir = Path::new("/t/gen");
    let ours = target("gen-e2021", "/t/gen/e2021/src/main.rs");
    let helper = target("helper", "/t/helper/src/lib.rs");
    let stdout = format!(
        r#"{{"reason":"compiler-message","package_id":"x","manifest_path":"/t/gen/e2021/Cargo.toml","target":{ours},"message":{{"message":"cannot find value `y` in this scope","level":"error","code":{{"code":"E0425","explanation":null}},"spans":[{{"file_name":"e2021/src/a_1.rs","byte_start":0,"byte_end":1,"line_start":5,"line_end":5,"column_start":9,"column_end":10,"is_primary":true,"text":[],"label":null,"suggested_replacement":null,"suggestion_applicability":null,"expansion":null}}],"children":[],"rendered":"error[E0425]: cannot find value `y`\n"}}}}
{{"reason":"compiler-message","package_id":"x","manifest_path":"/t/gen/e2021/Cargo.toml","target":{ours},"message":{{"message":"unused variable","level":"warning","code":null,"spans":[],"children":[],"rendered":"warning\n"}}}}
{{"reason":"compiler-message","package_id":"x","manifest_path":"/t/gen/e2021/Cargo.toml","target":{ours},"message":{{"message":"aborting due to 1 previous error","level":"error","code":null,"spans":[],"children":[],"rendered":"error: aborting\n"}}}}
{{"reason":"compiler-message","package_id":"h","manifest_path":"/t/helper/Cargo.toml","target":{helper},"message":{{"message":"broken helper","level":"error","code":null,"spans":[],"children":[],"rendered":"error: broken helper\n"}}}}
{{"reason":"compiler-artifact","package_id":"x","manifest_path":"/t/gen/e2024/Cargo.toml","target":{},"profile":{{"opt_level":"0","debuginfo":0,"debug_assertions":true,"overflow_checks":true,"test":false}},"features":[],"filenames":["/t/target/debug/gen-e2024"],"executable":"/t/target/debug/gen-e2024","fresh":false}}
Compiling is not JSON
{{"reason":"build-finished","success":false}}"#,
        target("gen-e2024", "/t/gen/e2024/src/main.rs")
    );
    let build = parse_messages(stdout.as_bytes(), crate_dir);
    assert_eq!(
        build.errors,
        vec![CompileError {
            target: "gen-e2021".to_owned(),
            file: Some(PathBuf::from("e2021/src/a_1.rs")),
            line: 5,
            column: 9,
            code: Some("E0425".to_owned()),
            message: "cannot find value `y` in this scope".to_owned(),
            rendered: "error[E0425]: cannot find value `y`
"
            .to_owned(),
        }]
    );
    assert_eq!(
        build.dependency_errors,
        vec![DependencyError {
            crate_name: "helper".to_owned(),
            rendered: "error: broken helper
"
            .to_owned(),
        }]
    );
    assert_eq!(
        build.executables,
        HashMap::from([(
            "gen-e2024".to_owned(),
            PathBuf::from("/t/target/debug/gen-e2024")
        )])
    );
}
