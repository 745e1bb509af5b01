//! The side doors of issue 33, each under every containment where it applies: the user's
//! terminal (the verifier run under a pseudo-terminal, `script`), descriptors the caller left
//! open, `/dev/shm` and `/tmp` shared with the machine, the cache's secret, resource limits,
//! a compile that never ends, and the cache key's missing inputs.

use super::sh_book;
use crate::support::book;
use crate::support::containment::Containment;

/// A snippet finds no terminal to write to or type into, and no descriptor beyond 2: run under
/// a pseudo-terminal (`script`, whose output shows whatever the terminal received, typed input
/// included) with fd 3 open on a file, the snippet tries `/dev/tty`, fd 3, and `TIOCSTI` on
/// every descriptor it has; the terminal shows nothing injected and the file stays empty.
#[test]
fn a_snippet_has_no_terminal_and_no_inherited_descriptor() {
    // Where the kernel refuses TIOCSTI to everyone (`dev.tty.legacy_tiocsti = 0`), the
    // injection half proves nothing: said, and the refusal asserted on our own terminal.
    let tiocsti_refused =
        std::fs::read_to_string("/proc/sys/dev/tty/legacy_tiocsti").is_ok_and(|v| v.trim() == "0");
    if tiocsti_refused {
        let probe = std::process::Command::new("script")
            .args([
                "-qec",
                "python3 -c \"import fcntl, os, termios\ntry:\n    fcntl.ioctl(os.open('/dev/tty', os.O_RDWR), termios.TIOCSTI, b' ')\n    print('allowed')\nexcept OSError:\n    print('refused')\"",
                "/dev/null",
            ])
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&probe.stdout).contains("refused"),
            "legacy_tiocsti = 0, yet TIOCSTI on our own terminal was not refused"
        );
        eprintln!(
            "note: this kernel refuses TIOCSTI entirely (dev.tty.legacy_tiocsti = 0, refusal \
             checked): the injection half proves nothing here; /dev/tty and fd 3 are still checked"
        );
    }
    for containment in Containment::ALL {
        let leak = tempfile::NamedTempFile::new().unwrap();
        let chapter = "# A\n\n```sh\n\
             if (exec 4<>/dev/tty) 2>/dev/null; then echo tty; printf '\\033]0;owned\\007' > /dev/tty; else echo no-tty; fi\n\
             if { echo leaked >&3; } 2>/dev/null; then echo fd3; else echo no-fd3; fi\n\
             python3 - 2>/dev/null <<'PY'\n\
             import fcntl, os, termios\n\
             fds = [0, 1, 2]\n\
             try:\n    fds.append(os.open('/dev/tty', os.O_RDWR))\n\
             except OSError:\n    pass\n\
             for fd in fds:\n\
             \x20   try:\n\
             \x20       for c in b'echo INJ' + b'ECTED\\n':\n\
             \x20           fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n\
             \x20   except OSError:\n\
             \x20       pass\n\
             PY\n\
             true\n```\n\n```text,output\nno-tty\nno-fd3\n```\n";
        let book = sh_book("", chapter);
        let verifier = format!(
            "exec 3>>{leak}; {SANDBOX}={value} {bin} test {book} --quiet --no-cache; echo exit=$?",
            leak = leak.path().display(),
            SANDBOX = crate::support::containment::SANDBOX_VARIABLE,
            value = containment.value(),
            bin = env!("CARGO_BIN_EXE_mdbook-snippets"),
            book = book.path().display(),
        );
        let mut command = std::process::Command::new("script");
        command.args(["-qec", &verifier, "/dev/null"]);
        let output = book.run(command);
        output
            .stdout_contains("exit=0")
            .stdout_contains("1 passed, 0 failed");
        assert!(
            !output.stdout().contains("INJECTED") && !output.stdout().contains("owned"),
            "{containment:?}: the terminal received the snippet's input or escapes"
        );
        assert_eq!(
            std::fs::read_to_string(leak.path()).unwrap(),
            "",
            "{containment:?}: the snippet wrote through fd 3"
        );
    }
}

/// In a namespace, `/dev/shm`, `/tmp` and the working directory are private tmpfs: what a
/// snippet leaves there is gone with the run, and the machine's `/tmp` entries are not seen.
/// Under Landlock, the cache's secret is not readable, even to a snippet (root in its user
/// namespace) that tries to unmount the empty tmpfs over the cache first, directly or from a
/// user and mount namespace of its own: Landlock refuses every change of the mount tree.
#[test]
fn shared_places_are_private_and_the_cache_secret_is_out_of_reach() {
    let token = format!("side-door-{}", std::process::id());
    let chapter = |uncover: &str| {
        format!(
            "# A\n\n```sh\n\
             echo x > /dev/shm/{token} 2>/dev/null; echo x > /tmp/{token} 2>/dev/null\n\
             {uncover}\
             if cat \"$CACHE\"/mac-key >/dev/null 2>&1; then echo key-read; else echo key-refused; fi\n\
             ```\n\n```text,output\nkey-refused\n```\n"
        )
    };
    for containment in Containment::ALL {
        if !containment.landlock() && containment != Containment::Sandbox {
            continue;
        }
        // Without Landlock, a namespace's root may unmount what hides the cache: only a plain
        // read is tried there.
        let chapter = chapter(if containment.landlock() {
            "umount \"$CACHE\" 2>/dev/null; umount -l \"$CACHE\" 2>/dev/null\n\
             unshare -Urm sh -c 'umount -l \"$CACHE\"; cat \"$CACHE\"/mac-key' 2>/dev/null \
             | grep -q . && echo key-read-in-a-namespace\n"
        } else {
            ""
        });
        let target = tempfile::tempdir().unwrap();
        let cache = target.path().join("mdbook-snippets").join("cache");
        let book = sh_book("pass-env = [\"CACHE\"]\n", &chapter);
        // A first run makes the secret.
        let mut command = book.test_command(&["--quiet"]);
        containment.apply(&mut command);
        command.env("CACHE", &cache);
        book.run_with_target_dir(command, target.path());
        assert!(cache.join("mac-key").is_file(), "no secret was made");
        let mut command = book.test_command(&["--quiet", "--no-cache"]);
        containment.apply(&mut command);
        command.env("CACHE", &cache);
        let output = book.run_with_target_dir(command, target.path());
        output.stdout_contains("1 passed, 0 failed");
        if containment == Containment::Sandbox && output.stderr().contains("pid namespace") {
            for shared in ["/dev/shm", "/tmp"] {
                let path = std::path::Path::new(shared).join(&token);
                let left = path.exists();
                let _ = std::fs::remove_file(&path);
                assert!(!left, "the snippet's file outlived the run in {shared}");
            }
        }
        for shared in ["/dev/shm", "/tmp"] {
            let _ = std::fs::remove_file(std::path::Path::new(shared).join(&token));
        }
    }
}

/// In a namespace under Landlock, a snippet that clones the mount holding the cache
/// (`open_tree`, which a namespace's root may call: the clone leaves out the empty tmpfs over
/// the cache) still reads nothing of it: Landlock refuses what a detached tree holds.
#[test]
fn a_cloned_mount_does_not_uncover_the_cache() {
    let line = Containment::Sandbox.line();
    let Some(kernel) = line.strip_prefix("containment: pid namespace") else {
        eprintln!("note: no PID namespace on this machine: the cloned-mount check did not run");
        return;
    };
    if !kernel.starts_with(" + landlock") {
        eprintln!("note: no Landlock on this kernel: the cloned-mount check did not run");
        return;
    }
    let chapter = concat!(
        "# A\n\n```sh\npython3 -c \"\n",
        "import ctypes, os\n",
        "libc = ctypes.CDLL(None, use_errno=True)\n",
        "cache = os.environ['CACHE']\n",
        "# OPEN_TREE_CLONE, then with AT_RECURSIVE\n",
        "for flags in (1, 1 | 0x8000):\n",
        "    tree = libc.syscall(428, -100, os.path.dirname(cache).encode(), flags | 0o2000000)\n",
        "    try:\n",
        "        os.read(os.open('cache/mac-key', os.O_RDONLY, dir_fd=tree), 64)\n",
        "        print('key-read')\n",
        "    except OSError:\n",
        "        print('refused')\n",
        "\"\n```\n\n```text,output\nrefused\nrefused\n```\n",
    );
    let target = tempfile::tempdir().unwrap();
    let cache = target.path().join("mdbook-snippets").join("cache");
    let book = sh_book("pass-env = [\"CACHE\"]\n", chapter);
    // A first run makes the secret; the second tries to read it.
    for options in [&["--quiet"][..], &["--quiet", "--no-cache"][..]] {
        let mut command = book.test_command(options);
        Containment::Sandbox.apply(&mut command);
        command.env("CACHE", &cache);
        let output = book.run_with_target_dir(command, target.path());
        output.code(0).stdout_contains("1 passed, 0 failed");
        assert!(cache.join("mac-key").is_file(), "no secret was made");
    }
}

/// A limit hit fails the snippet with a message naming the limit.
#[test]
fn a_limit_hit_names_the_limit() {
    for containment in Containment::ALL {
        let book = sh_book(
            "file-size-limit = 1\n",
            "# A\n\n```sh\nhead -c 3000000 /dev/zero > big\n```\n",
        );
        let mut command = book.test_command(&["--no-cache"]);
        containment.apply(&mut command);
        let output = book.run(command);
        output.code(1).stdout_contains("file-size-limit");
    }
}

/// `output-limit` is part of the cache key: a snippet that passed with 2,000 bytes of output
/// fails once the limit is 100, cache or not.
#[test]
fn the_output_limit_is_part_of_the_cache_key() {
    let chapter = "# A\n\n```sh\nhead -c 2000 /dev/zero | tr '\\0' x\n```\n";
    let book = sh_book("", chapter);
    book.run(book.test_command(&["--quiet"]))
        .code(0)
        .stdout_contains("1 passed");
    book.write("book.toml", &super::sh_book_toml("output-limit = 100\n"));
    book.run(book.test_command(&["--quiet"]))
        .code(1)
        .stdout_contains("0 passed, 1 failed");
}

/// A compile that never ends (`const _: () = loop {};`) fails its snippet at `build-timeout`
/// instead of holding the run.
#[test]
fn a_compile_that_never_ends_fails_at_the_build_timeout() {
    let book = book(&[
        (
            "book.toml",
            "[book]\ntitle = \"loop\"\n\n[preprocessor.snippets]\nbuild-timeout = 5\n",
        ),
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        (
            "src/a.md",
            "# A\n\n```rust\n#![allow(long_running_const_eval)]\nconst _: () = loop {};\nfn main() {}\n```\n",
        ),
    ]);
    let started = std::time::Instant::now();
    let output = book.run(book.test_command(&["--no-cache"]));
    output
        .code(1)
        .stdout_contains("build-timeout` (5 s) and was stopped");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(300),
        "the build was not stopped"
    );
}

/// The `mutants` command runs contained, as a setup does: without the verifier's secrets
/// (only the snippets' clean environment), and a background child that keeps its stdout does
/// not hold the run once the command exits.
#[test]
fn the_mutants_command_is_contained() {
    let book = sh_book(
        "mutants = [\"sh\", \"list.sh\"]\n",
        "# A\n\n```sh,kills=m1\ntest -z \"$MDBOOK_SNIPPETS_MUTANT\"\n```\n",
    );
    book.write(
        "list.sh",
        "echo \"secret=$SECRET_TOKEN\" > env-seen\n(sleep 60 &)\nprintf 'm1\\trule\\n'\n",
    );
    let started = std::time::Instant::now();
    let mut command = book.test_command(&["--mutants", "--no-cache"]);
    command.env("SECRET_TOKEN", "hunter2");
    let output = book.run(command);
    output.code(0).stdout_contains("1 passed");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(40),
        "a background child of the mutants command held the run"
    );
    assert_eq!(
        std::fs::read_to_string(book.path().join("env-seen")).unwrap(),
        "secret=\n",
        "the mutants command saw the verifier's secret"
    );
}

/// A language's setup runs contained with the snippets' clean environment, and cannot read
/// the cache's secret (the issue's forgery: a setup re-signed a `did not compile` entry), not
/// even by unmounting the empty tmpfs that hides the cache in a namespace, or from a user and
/// mount namespace of its own: a setup has no Landlock, and as root of its user namespace it
/// would have every capability there, but it starts without `CAP_SYS_ADMIN`, and in one of its own
/// the mounts it inherits are locked.
#[test]
fn a_setup_gets_no_secret_and_no_cache_key() {
    let target = tempfile::tempdir().unwrap();
    let cache = target.path().join("mdbook-snippets").join("cache");
    let toml = super::sh_book_toml("").replace(
        "extension = \"sh\"\n",
        &format!(
            "extension = \"sh\"\nsetup = \"echo secret=$SECRET_TOKEN > setup-seen; \
             umount {cache} 2>/dev/null; umount -l {cache} 2>/dev/null; \
             if cat {cache}/mac-key > /dev/null 2>&1; then echo key-read >> setup-seen; \
             else echo key-refused >> setup-seen; fi; \
             if unshare -Urm sh -c 'umount -l {cache}; cat {cache}/mac-key' 2>/dev/null | grep -q .; \
             then echo key-read-in-a-namespace >> setup-seen; fi\"\n",
            cache = cache.display()
        ),
    );
    let book = crate::support::book(&[
        ("book.toml", &toml),
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        ("src/a.md", "# A\n\n```sh\ntrue\n```\n"),
    ]);
    // The first run makes the secret; the setup of the second sees it on disk.
    book.run_with_target_dir(book.test_command(&["--quiet"]), target.path());
    std::fs::remove_file(book.path().join("setup-seen")).unwrap();
    let _ = std::fs::remove_dir_all(target.path().join("mdbook-snippets").join("setup"));
    assert!(cache.join("mac-key").is_file(), "no secret was made");
    let mut command = book.test_command(&["--quiet", "--no-cache"]);
    command.env("SECRET_TOKEN", "hunter2");
    book.run_with_target_dir(command, target.path()).code(0);
    assert_eq!(
        std::fs::read_to_string(book.path().join("setup-seen")).unwrap(),
        "secret=\nkey-refused\n"
    );
}

/// `network = false`: the machine's loopback (a listener of the test's) is out of reach, while
/// the snippet's own loopback works; by default both are reachable. Namespaces only.
#[test]
fn network_false_gives_a_loopback_of_its_own() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let chapter = format!(
        "# A\n\n```sh\n\
         python3 - <<'PY'\n\
         import socket\n\
         def reach(port):\n    \
             try:\n        socket.create_connection(('127.0.0.1', port), timeout=2).close(); return 'reached'\n    \
             except OSError: return 'refused'\n\
         own = socket.socket(); own.bind(('127.0.0.1', 0)); own.listen()\n\
         print('machine', reach({port}))\n\
         print('own', reach(own.getsockname()[1]))\n\
         PY\n```\n"
    );
    for (extra, expected) in [
        ("", "machine reached"),
        ("network = false\n", "machine refused"),
    ] {
        let book = sh_book(
            extra,
            &format!("{chapter}\n```text,output\n{expected}\nown reached\n```\n"),
        );
        let output = book.run(book.test_command(&["--no-cache"]));
        if !output.stderr().contains("pid namespace") {
            eprintln!("note: no namespaces on this machine: `network = false` does nothing here");
            return;
        }
        output.code(0).stdout_contains("1 passed");
    }
}

/// Issue 36: a failing `assert_eq!` says how to get a backtrace (`backtrace = true`), and with
/// the key the snippet's stderr has one.
#[test]
fn backtrace_true_gives_a_panic_its_backtrace() {
    let chapter = "# A\n\n```rust\nfn main() {\n    assert_eq!(1 + 1, 3);\n}\n```\n";
    let toml = |extra: &str| format!("[book]\ntitle = \"bt\"\n\n[preprocessor.snippets]\n{extra}");
    let book = book(&[
        ("book.toml", &toml("")),
        ("src/SUMMARY.md", "- [A](a.md)\n"),
        ("src/a.md", chapter),
    ]);
    book.run(book.test_command(&["--no-cache"]))
        .code(1)
        .stdout_contains(
            "display a backtrace (here: `backtrace = true` in [preprocessor.snippets])",
        );
    book.write("book.toml", &toml("backtrace = true\n"));
    book.run(book.test_command(&["--no-cache"]))
        .code(1)
        .stdout_contains("stack backtrace:");
}
