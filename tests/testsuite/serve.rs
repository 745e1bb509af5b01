//! `mdbook serve` with the preprocessor: the real mdBook 0.5 binary builds the fixture book and
//! serves it on loopback, and the chapter fetched over plain HTTP/1.1 shows the snippets' real
//! outputs. The server runs in a process group of its own, which a guard kills even when an
//! assertion fails, so no test run leaves a server behind.

use std::fmt;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::support::{self, fixture};

/// How long the first build (which compiles and runs the snippets) and the first response may
/// take together.
const DEADLINE: Duration = Duration::from_secs(180);

/// How many ports to try when another process takes the one we picked before mdBook binds it.
const ATTEMPTS: usize = 5;

#[test]
fn mdbook_serve_shows_the_outputs() {
    let dir = fixture("green");
    let (server, response) = serve(dir.path(), "/output.html");

    assert!(
        response.status.starts_with("HTTP/1.1 200"),
        "{response}\n{server}"
    );
    assert!(
        response.body.contains(
            r#"<pre class="mdbook-snippets-stdout">&lt;script&gt;alert('hi')&lt;/script&gt;</pre>"#
        ),
        "{response}\n{server}"
    );
    assert!(
        response
            .body
            .contains(r#"<pre class="mdbook-snippets-stdout">answer = 42</pre>"#),
        "{response}\n{server}"
    );
    assert!(
        !response.body.contains("<script>alert"),
        "a snippet's output must never become markup\n{server}"
    );
    assert!(
        server
            .stderr()
            .contains("mdbook-snippets: 4 passed, 0 failed, 1 skipped"),
        "{server}"
    );
}

/// An author serving a book sees a failing snippet in the page, at the snippet, with the report
/// the terminal shows; saving the fixed chapter reloads the page with the snippet's output.
#[test]
fn mdbook_serve_shows_a_failure_in_the_page_until_it_is_fixed() {
    let dir = fixture("green");
    // mdBook's watcher obeys the nearest `.gitignore` up the tree, and the repository's ignores
    // `target/`, where the test books live: give the book its own, empty one.
    std::fs::write(dir.path().join(".gitignore"), "").unwrap();
    let chapter = dir.path().join("src/plain.md");
    let plain = std::fs::read_to_string(&chapter).unwrap();
    let with = |code: &str| format!("{plain}\nA number:\n\n```rust\n{code}\n```\n");
    std::fs::write(
        &chapter,
        with("let n: u32 = \"one\";\nprintln!(\"n = {n}\");"),
    )
    .unwrap();

    let (server, response) = serve(dir.path(), "/plain.html");
    let page = &response.body;
    assert!(
        response.status.starts_with("HTTP/1.1 200"),
        "{response}\n{server}"
    );
    assert!(
        page.contains(r#"<div class="mdbook-snippets-failure" role="alert""#),
        "{response}\n{server}"
    );
    // The terminal's report, in the page: the place, the excerpt, rustc's message.
    for shown in [
        "error: snippet src_plain_md_1 does not compile",
        "--&gt; src/plain.md:13:14",
        "13 | let n: u32 = \"one\";",
        "mismatched types",
    ] {
        assert!(
            page.contains(shown),
            "{shown:?} not in the page\n{response}\n{server}"
        );
    }
    assert!(
        server
            .stderr()
            .contains("serving the book with 1 failure(s) shown in its pages"),
        "{server}"
    );
    // The other chapters are rendered as usual.
    let output = get(server.port, "/output.html").unwrap();
    assert!(
        output
            .body
            .contains(r#"<pre class="mdbook-snippets-stdout">answer = 42</pre>"#),
        "{output}"
    );

    // Save the fixed chapter: mdBook rebuilds, and tells the page to reload once it is written.
    let mut reload =
        LiveReload::connect(server.port).unwrap_or_else(|error| panic!("{error}\n{server}"));
    let saved = Instant::now();
    std::fs::write(&chapter, with("let n: u32 = 1;\nprintln!(\"n = {n}\");")).unwrap();
    reload
        .wait()
        .unwrap_or_else(|error| panic!("{error}\n{server}"));
    let elapsed = saved.elapsed();
    eprintln!(
        "saved a chapter with one edited snippet: the page reloaded {:.2} s later",
        elapsed.as_secs_f64()
    );
    let fixed = get(server.port, "/plain.html").unwrap();
    assert!(
        fixed
            .body
            .contains(r#"<pre class="mdbook-snippets-stdout">n = 1</pre>"#),
        "{fixed}\n{server}"
    );
    assert!(
        !fixed.body.contains("mdbook-snippets-failure"),
        "{fixed}\n{server}"
    );
}

/// The page's side of mdBook's live reload: a websocket on `/__livereload`, on which mdBook
/// sends the text `reload` after each rebuild.
struct LiveReload {
    stream: TcpStream,
}

impl LiveReload {
    fn connect(port: u16) -> std::io::Result<LiveReload> {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))?;
        write!(
            stream,
            "GET /__livereload HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n"
        )?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut byte)?;
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        if !head.starts_with("HTTP/1.1 101") {
            return Err(std::io::Error::other(format!(
                "no websocket upgrade:\n{head}"
            )));
        }
        Ok(LiveReload { stream })
    }

    /// Waits (up to [`DEADLINE`]) for a text frame saying `reload`.
    fn wait(&mut self) -> std::io::Result<()> {
        self.stream.set_read_timeout(Some(DEADLINE))?;
        loop {
            // Server frames are unmasked: FIN/opcode, then a 7-bit length (or 126 + 16 bits).
            let mut header = [0u8; 2];
            self.stream.read_exact(&mut header)?;
            let length = match header[1] & 0x7f {
                126 => {
                    let mut extended = [0u8; 2];
                    self.stream.read_exact(&mut extended)?;
                    usize::from(u16::from_be_bytes(extended))
                }
                127 => return Err(std::io::Error::other("an unexpectedly long frame")),
                length => usize::from(length),
            };
            let mut payload = vec![0u8; length];
            self.stream.read_exact(&mut payload)?;
            if header[0] & 0x0f == 0x1 && payload == b"reload" {
                return Ok(());
            }
        }
    }
}

/// Starts `mdbook serve` on `root` and returns it with the first response to `GET path`,
/// retrying on another port when the chosen one was taken in the meantime.
fn serve(root: &Path, path: &str) -> (Server, Response) {
    for _ in 0..ATTEMPTS {
        let mut server = Server::start(root, free_port());
        if let Some(response) = server.first_response(path) {
            return (server, response);
        }
    }
    panic!("mdbook serve could not bind a port in {ATTEMPTS} attempts");
}

/// A port nobody listened on a moment ago (the OS picks it; we release it for mdBook).
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("binding a loopback port")
        .port()
}

/// A running `mdbook serve`, its output going to files so that it can never block on a pipe.
struct Server {
    child: Child,
    port: u16,
    command: String,
    stdout: tempfile::NamedTempFile,
    stderr: tempfile::NamedTempFile,
}

impl Server {
    fn start(root: &Path, port: u16) -> Server {
        let log = || tempfile::NamedTempFile::new_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let (stdout, stderr) = (log(), log());
        let mut command =
            support::mdbook::command(&["serve", "-n", "127.0.0.1", "-p", &port.to_string()]);
        command
            .current_dir(root)
            .env("CARGO_TARGET_DIR", support::snippets_target_dir())
            .stdin(Stdio::null())
            .stdout(stdout.reopen().unwrap())
            .stderr(stderr.reopen().unwrap())
            // Its own group, so that one killpg also ends the preprocessor and the snippets.
            .process_group(0);
        let description = format!("{command:?} (in {})", root.display());
        let child = command
            .spawn()
            .unwrap_or_else(|error| panic!("starting {description}: {error}"));
        Server {
            child,
            port,
            command: description,
            stdout,
            stderr,
        }
    }

    /// Polls until the page is served; `None` when mdBook could not bind the port.
    fn first_response(&mut self, path: &str) -> Option<Response> {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                if self.stderr().contains("Unable to bind") {
                    return None;
                }
                panic!("mdbook serve exited ({status}) before serving {path}\n{self}");
            }
            // mdBook logs this once the book is built and the server thread is starting.
            if self.stderr().contains("Serving on")
                && let Ok(response) = get(self.port, path)
            {
                return Some(response);
            }
            assert!(
                Instant::now() < deadline,
                "no response to GET {path} within {DEADLINE:?}\n{self}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn stdout(&self) -> String {
        std::fs::read_to_string(self.stdout.path()).unwrap_or_default()
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.stderr.path()).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The group we created for this server; ESRCH (the group is already gone) is harmless.
        let group = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        let _ = self.child.wait();
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "--- command: {}\n--- port: {}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.command,
            self.port,
            self.stdout(),
            self.stderr()
        )
    }
}

/// An HTTP response: its status line, and its body (de-chunked when sent in chunks).
struct Response {
    status: String,
    body: String,
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--- status: {}\n--- body:\n{}", self.status, self.body)
    }
}

/// `GET path` on loopback with `Connection: close`, read to the end.
fn get(port: u16, path: &str) -> std::io::Result<Response> {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes)?;
    let split = bytes
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no end of headers in the response"))?;
    let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
    let body = &bytes[split + 4..];
    let chunked = head.lines().any(|line| {
        let line = line.to_ascii_lowercase();
        line.starts_with("transfer-encoding:") && line.contains("chunked")
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_vec()
    };
    Ok(Response {
        status: head.lines().next().unwrap_or_default().to_owned(),
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// The payload of a chunked body: each chunk is `SIZE(hex)[;ext]\r\nDATA\r\n`, ending at size 0.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    while let Some(end) = body.windows(2).position(|window| window == b"\r\n") {
        let size_line = String::from_utf8_lossy(&body[..end]);
        let size = size_line.split(';').next().unwrap_or_default().trim();
        let Ok(size) = usize::from_str_radix(size, 16) else {
            break;
        };
        let data = &body[end + 2..];
        if size == 0 || data.len() < size {
            break;
        }
        payload.extend_from_slice(&data[..size]);
        body = data[size..].strip_prefix(b"\r\n").unwrap_or(&data[size..]);
    }
    payload
}
