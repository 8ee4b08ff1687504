//! The board page in a real browser: headless Chromium driven over WebDriver (chromedriver,
//! spoken to with raw HTTP JSON). It loads the page, plays by clicking squares, sees the
//! engine's reply, uses Undo, Hint, the promotion dialog, live analysis and mate search, and
//! mates from a set-up position.
//!
//! Needs Debian's `chromium` and `chromium-driver`. Without them the test is skipped with a
//! notice, except under CI (`CI=true`), where it fails.
#![cfg(feature = "gui")]

#[allow(dead_code)]
#[path = "common/webdriver.rs"]
mod webdriver;

use serde_json::json;
use std::time::Instant;
use webdriver::{find_program, start_driver, Driver};

fn moves_shown(d: &Driver) -> i64 {
    d.js("return document.querySelectorAll('#movelist li').length")
        .as_i64()
        .unwrap_or(-1)
}

#[test]
fn play_in_a_real_browser() {
    let chromedriver = find_program(&["chromedriver"]);
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let (Some(chromedriver), Some(chromium)) = (chromedriver, chromium) else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("chromium and chromedriver are required in CI (apt-get install chromium chromium-driver)");
        }
        eprintln!("NOTICE: gui_browser skipped: chromium or chromedriver not installed (apt-get install chromium chromium-driver)");
        return;
    };
    let started = Instant::now();
    let server = gogo::gui::start(0).expect("server");
    let base = format!("http://127.0.0.1:{}/", server.addr().port());
    let d = start_driver(&chromedriver, &chromium);
    d.cmd(
        "POST",
        "/url",
        Some(json!({"url": format!("{base}?opponent=computer-easy&think_ms=50")})),
    );
    d.wait(
        "the page",
        "return document.querySelectorAll('#board .cell').length === 25 && document.getElementById('status').textContent.includes('your move')",
    );

    // A move by clicking: the legal targets show, then the computer answers.
    d.click("[data-sq='5e']");
    d.wait(
        "targets",
        "return document.querySelector(\"[data-sq='4d']\").classList.contains('target')",
    );
    d.click("[data-sq='4d']");
    d.wait(
        "the engine's reply",
        "return document.querySelectorAll('#movelist li').length === 2 && document.getElementById('status').textContent.includes('your move')",
    );
    assert!(
        d.js("return document.querySelector(\"[data-sq='4d'] .piece\").dataset.piece")
            == json!("bK")
    );

    // Undo takes back the move and the reply.
    d.click("#undo");
    d.wait(
        "undo",
        "return document.querySelectorAll('#movelist li').length === 0",
    );
    assert_eq!(moves_shown(&d), 0);

    // Hint draws the engine's move.
    d.click("#hint");
    d.wait(
        "a hint",
        "return document.getElementById('message').textContent.startsWith('Hint: ') && (document.querySelectorAll('#arrows line').length > 0 || document.querySelector('.cell.hint') !== null)",
    );

    // The promotion dialog, in a set-up position against a friend.
    d.js("document.getElementById('opponent').value = 'friend'; return true");
    d.js("document.getElementById('sfen-input').value = '4k/1S1P1/5/5/K4 b - 1'; return true");
    d.click("#setup");
    d.wait(
        "the set-up position",
        "const p = document.querySelector(\"[data-sq='4b'] .piece\"); return p !== null && p.dataset.piece === 'bS'",
    );
    d.click("[data-sq='4b']");
    d.click("[data-sq='4a']");
    d.wait(
        "the promotion dialog",
        "return !document.getElementById('promo').hidden",
    );
    d.click("#promo-yes");
    d.wait(
        "the promoted silver",
        "const p = document.querySelector(\"[data-sq='4a'] .piece\"); return p !== null && p.dataset.piece === 'b+S'",
    );
    // A forced promotion needs no dialog.
    d.click("[data-sq='1a']"); // gote's king
    d.click("[data-sq='1b']");
    d.wait(
        "gote's move",
        "return document.querySelectorAll('#movelist li').length === 2",
    );
    // (by dragging the pawn)
    d.drag("[data-sq='2b']", "[data-sq='2a']");
    d.wait(
        "the forced promotion",
        "const p = document.querySelector(\"[data-sq='2a'] .piece\"); return p !== null && p.dataset.piece === 'b+P' && document.getElementById('promo').hidden",
    );

    // Live analysis: lines appear with depth and nodes; clicking one plays it out.
    d.click("#analyse-toggle");
    d.wait(
        "analysis lines",
        "return document.querySelectorAll('#lines li').length >= 1 && document.getElementById('an-stats').textContent.includes('depth')",
    );
    let before = moves_shown(&d);
    d.click("#lines li");
    d.wait(
        "the line played",
        &format!("return document.querySelectorAll('#movelist li').length > {before}"),
    );
    d.click("#analyse-toggle");

    // Checkmate by a drop from the hand strip in a set-up position, after a mate search.
    d.js("document.getElementById('sfen-input').value = '4k/5/4P/5/K4 b G 1'; return true");
    d.click("#setup");
    d.wait(
        "the mate position",
        "return document.querySelector(\"[data-hand='b-G']\") !== null",
    );
    d.click("#mate");
    d.wait(
        "the mate search",
        "return document.getElementById('mate-result').textContent === 'Mate in 1: G*1b'",
    );
    d.click("[data-hand='b-G']");
    d.click("[data-sq='1b']");
    d.wait(
        "checkmate",
        "const s = document.getElementById('status'); return s.dataset.reason === 'checkmate' && s.textContent.includes('Checkmate')",
    );
    assert_eq!(
        d.js("return document.querySelector(\"[data-sq='1a']\").classList.contains('check')"),
        json!(true)
    );
    drop(d);
    server.shutdown();
    eprintln!(
        "gui_browser: done in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
