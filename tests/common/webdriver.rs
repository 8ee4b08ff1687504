//! A WebDriver client for the browser tests and tools: finds Debian's chromium and
//! chromedriver, starts them headless with a fresh profile, and speaks WebDriver's JSON over
//! raw HTTP. Shared by tests/gui_browser.rs and examples/gui_screenshots.rs.

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// The chromedriver process; killed on drop.
pub struct Driver {
    child: Child,
    port: u16,
    session: Option<String>,
    _profile: TempDir,
}

pub struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            let _ = http(self.port, "DELETE", &format!("/session/{s}"), None);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP exchange with chromedriver: (status, JSON body).
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    // chromedriver may keep the connection open: read the head, then Content-Length bytes.
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = out.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("connection closed in the head".into());
        }
        out.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&out[..head_end]).to_ascii_lowercase();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or("no status")?;
    let length = head.lines().find_map(|l| {
        l.strip_prefix("content-length:")
            .and_then(|v| v.trim().parse::<usize>().ok())
    });
    let mut body = out[head_end + 4..].to_vec();
    match length {
        Some(len) => {
            while body.len() < len {
                let n = s.read(&mut buf).map_err(|e| e.to_string())?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&buf[..n]);
            }
        }
        None => {
            s.read_to_end(&mut body).map_err(|e| e.to_string())?;
        }
    }
    let body = String::from_utf8_lossy(&body).to_string();
    let v = serde_json::from_str(&body).unwrap_or(Value::Null);
    Ok((status, v))
}

impl Driver {
    pub fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let s = self.session.as_deref().expect("session");
        let (st, v) = http(
            self.port,
            method,
            &format!("/session/{s}{path}"),
            body.as_ref(),
        )
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert_eq!(st, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    pub fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// The WebDriver id of the element `css` finds.
    pub fn element(&self, css: &str) -> String {
        let el = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        el[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("element {css}: {el}"))
            .to_string()
    }

    /// Clicks the element `css` finds (found again if the page redrew it meanwhile).
    pub fn click(&self, css: &str) {
        let s = self.session.as_deref().expect("session");
        for _ in 0..10 {
            let id = self.element(css);
            let (st, v) = http(
                self.port,
                "POST",
                &format!("/session/{s}/element/{id}/click"),
                Some(&json!({})),
            )
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
            if st == 200 {
                return;
            }
            assert_eq!(
                v["value"]["error"], "stale element reference",
                "click {css}: {v}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("click {css}: the element kept going stale");
    }

    /// A PNG of the element `css` finds, as the browser drew it.
    pub fn element_png(&self, css: &str) -> Vec<u8> {
        let id = self.element(css);
        let png = self.cmd("GET", &format!("/element/{id}/screenshot"), None);
        base64_decode(png.as_str().expect("base64"))
    }

    /// Resizes the browser window (CSS pixels).
    pub fn window(&self, width: u32, height: u32) {
        self.cmd(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    /// Drags with the mouse from the centre of one element to the centre of another.
    pub fn drag(&self, from_css: &str, to_css: &str) {
        let centre = |css: &str| -> (i64, i64) {
            let v = self.js(&format!(
                "const r = document.querySelector(\"{css}\").getBoundingClientRect(); \
                 return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]"
            ));
            (v[0].as_i64().unwrap(), v[1].as_i64().unwrap())
        };
        let (x1, y1) = centre(from_css);
        let (x2, y2) = centre(to_css);
        self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x1, "y": y1},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerMove", "duration": 100, "origin": "viewport", "x": x2, "y": y2},
                {"type": "pointerUp", "button": 0},
            ]}]})),
        );
    }

    /// Waits until `script` returns true.
    pub fn wait(&self, what: &str, script: &str) {
        let start = Instant::now();
        loop {
            if self.js(script) == json!(true) {
                return;
            }
            if start.elapsed() > Duration::from_secs(20) {
                let status = self.js("return document.getElementById('status').textContent + ' | ' + document.getElementById('message').textContent");
                panic!("timed out waiting for {what} (page: {status})");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

pub fn start_driver(chromedriver: &Path, chromium: &Path) -> Driver {
    let port = free_port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let profile = std::env::temp_dir().join(format!("gogo-chromium-{}-{port}", std::process::id()));
    let mut d = Driver {
        child,
        port,
        session: None,
        _profile: TempDir(profile.clone()),
    };
    let start = Instant::now();
    while http(port, "GET", "/status", None).map_or(true, |(_, v)| v["value"]["ready"] != true) {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "chromedriver not ready"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let caps = json!({"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": chromium.to_string_lossy(),
            "args": ["--headless", "--no-sandbox", "--disable-gpu",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                     "--window-size=1200,900",
                     format!("--user-data-dir={}", profile.display())],
        }
    }}});
    let (st, v) = http(port, "POST", "/session", Some(&caps)).expect("new session");
    assert_eq!(st, 200, "new session: {v}");
    d.session = Some(
        v["value"]["sessionId"]
            .as_str()
            .expect("session id")
            .to_string(),
    );
    d
}

pub fn base64_decode(text: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let digits: Vec<u32> = text.bytes().filter_map(val).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut acc = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            acc |= d << (18 - 6 * i);
        }
        let bytes = [(acc >> 16) as u8, (acc >> 8) as u8, acc as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    out
}
