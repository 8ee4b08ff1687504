//! Makes the screenshots of docs/gui.md and the README with headless Chromium (Debian's
//! `chromium` and `chromium-driver`):
//!
//! ```text
//! cargo run --example gui_screenshots
//! ```
//!
//! It writes `docs/img/gui-play.png`, `docs/img/gui-phone.png` and `docs/img/gui-analysis.png`.
//! The pieces are SVG and the notation font is embedded: no Japanese font is needed.

#[allow(dead_code)]
#[path = "../tests/common/webdriver.rs"]
mod webdriver;

use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;
use webdriver::{base64_decode, find_program, start_driver};

fn main() {
    let chromedriver = find_program(&["chromedriver"]).expect("chromedriver");
    let chromium = find_program(&["chromium"]).expect("chromium");
    let server = gogo::gui::start(0).expect("server");
    let base = format!("http://127.0.0.1:{}/", server.addr().port());
    let d = start_driver(&chromedriver, &chromium);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/img");
    std::fs::create_dir_all(&dir).unwrap();
    let shot = |name: &str| {
        let png = d.cmd("GET", "/screenshot", None);
        let bytes = base64_decode(png.as_str().expect("base64"));
        std::fs::write(dir.join(name), bytes).unwrap();
    };

    // Play: against the computer, a few moves in, a hint and a selected piece.
    d.cmd(
        "POST",
        "/url",
        Some(json!({"url": format!("{base}?opponent=computer-hard&think_ms=300")})),
    );
    d.wait(
        "the page",
        "return document.getElementById('status').textContent.includes('your move')",
    );
    for (from, to, n) in [("5e", "4d", 2), ("3e", "2d", 4)] {
        d.click(&format!("[data-sq='{from}']"));
        d.click(&format!("[data-sq='{to}']"));
        d.wait(
            "the reply",
            &format!("return document.querySelectorAll('#movelist li').length === {n} && document.getElementById('status').textContent.includes('your move')"),
        );
    }
    d.click("#hint");
    d.wait(
        "a hint",
        "return document.getElementById('message').textContent.startsWith('Hint: ')",
    );
    d.click("[data-sq='4e']");
    shot("gui-play.png");
    // The same in a phone-sized window.
    d.window(390, 844);
    d.wait("the phone layout", "return window.innerWidth <= 400");
    std::thread::sleep(Duration::from_millis(300));
    shot("gui-phone.png");
    d.window(1200, 900);
    d.wait("the desktop layout", "return window.innerWidth > 1000");

    // Analysis: sente plays the engine's hints against the Medium level, then the game is
    // reviewed and the position analysed live.
    d.cmd(
        "POST",
        "/url",
        Some(json!({"url": format!("{base}?opponent=computer-medium&think_ms=150")})),
    );
    d.wait(
        "the page",
        "return document.getElementById('status').textContent.includes('your move')",
    );
    d.js("(async () => { const sleep = (ms) => new Promise((r) => setTimeout(r, ms)); \
            for (let i = 0; i < 10 && !G.result; i++) { \
              const r = await api('POST', '/api/game/' + G.id + '/hint'); await playMoves([r.hint.usi]); \
              while (busy || (G.computer_to_move && !G.result)) await sleep(30); } \
            window.gameDone = true; })(); return true");
    d.wait("the game", "return window.gameDone === true");
    d.click("#review");
    d.wait(
        "the review",
        "return document.getElementById('review-text').textContent === 'done'",
    );
    // Step back three moves and analyse that position.
    d.js("showPly(G.ply - 3); return true");
    d.wait("an earlier position", "return G.view === G.ply - 3");
    d.click("#analyse-toggle");
    std::thread::sleep(Duration::from_secs(4));
    shot("gui-analysis.png");
    drop(d);
    server.shutdown();
}
