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

use gogo::gui::Server;
use serde_json::json;
use std::time::Instant;
use webdriver::{find_program, start_driver, Driver};

/// A board server and a browser showing its page with `query`; `None` (the test is skipped
/// with a notice) when chromium or chromedriver is missing, except under CI, where that fails.
fn open_board(query: &str) -> Option<(Server, Driver)> {
    let chromedriver = find_program(&["chromedriver"]);
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let (Some(chromedriver), Some(chromium)) = (chromedriver, chromium) else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("chromium and chromedriver are required in CI (apt-get install chromium chromium-driver)");
        }
        eprintln!("NOTICE: gui_browser skipped: chromium or chromedriver not installed (apt-get install chromium chromium-driver)");
        return None;
    };
    let server = gogo::gui::start(0).expect("server");
    let base = format!("http://127.0.0.1:{}/", server.addr().port());
    let d = start_driver(&chromedriver, &chromium);
    d.cmd(
        "POST",
        "/url",
        Some(json!({"url": format!("{base}?{query}")})),
    );
    Some((server, d))
}

fn moves_shown(d: &Driver) -> i64 {
    d.js("return document.querySelectorAll('#movelist li').length")
        .as_i64()
        .unwrap_or(-1)
}

#[test]
fn play_in_a_real_browser() {
    let started = Instant::now();
    let Some((server, d)) = open_board("opponent=computer-easy&think_ms=50") else {
        return;
    };
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
    // A hint, then the mate: the hint goes with the end of the game.
    d.click("#hint");
    d.wait(
        "the mating hint",
        "return document.querySelector(\"[data-sq='1b']\").classList.contains('hint')",
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
    assert_eq!(
        d.js("return document.querySelectorAll('.cell.hint, #arrows line').length"),
        json!(0)
    );
    // Analyse and mate search on the finished game say why there is nothing to show.
    d.click("#analyse-toggle");
    d.wait(
        "the analysis refusal",
        "return document.getElementById('message').textContent.includes('over')",
    );
    d.click("#analyse-toggle");
    d.click("#mate");
    d.wait(
        "already mated",
        "return document.getElementById('mate-result').dataset.status === 'mated'",
    );
    drop(d);
    server.shutdown();
    eprintln!(
        "gui_browser: done in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Counts of the page as one JSON value, for short assertions.
fn view(d: &Driver) -> (i64, i64, String) {
    let v = d.js("const s = document.querySelector('#movelist li.shown'); \
         return [document.querySelectorAll('#movelist li').length, s ? Number(s.dataset.ply) : 0, \
                 document.getElementById('status').textContent]");
    (
        v[0].as_i64().unwrap(),
        v[1].as_i64().unwrap(),
        v[2].as_str().unwrap().to_string(),
    )
}

fn key(d: &Driver, k: &str) {
    d.js(&format!(
        "document.body.dispatchEvent(new KeyboardEvent('keydown', {{key: '{k}', bubbles: true}})); return true"
    ));
}

/// Pieces without a Japanese font, records in and out, stepping through a game, a reload, the
/// gote side's hands, the phone layout and the bugs of issue 18.
#[test]
fn records_steps_and_pieces_in_a_real_browser() {
    let started = Instant::now();
    let Some((server, d)) = open_board("opponent=friend") else {
        return;
    };
    d.wait(
        "the page",
        "return document.querySelectorAll('#board .piece').length === 12",
    );

    // Pieces are drawn as SVG outlines: two different pieces differ on screen, whatever fonts
    // the machine has (CI's has no CJK font), and two golds look alike.
    let gold = d.element_png("[data-sq='4e'] .piece");
    let silver = d.element_png("[data-sq='3e'] .piece");
    assert_ne!(gold, silver, "a gold and a silver look the same");
    let gote_gold = d.element_png("[data-sq='2a'] .piece");
    assert_ne!(gold, gote_gold, "gote's pieces face the other way");
    assert_eq!(
        d.js("return [...document.querySelectorAll('#board .piece svg path')].every(p => p.getAttribute('d').length > 100)"),
        json!(true)
    );
    // The last move's shading is not the piece's colour.
    d.click("[data-sq='3e']");
    d.click("[data-sq='2d']");
    d.wait(
        "the move",
        "return document.querySelectorAll('#movelist li').length === 1",
    );
    let shading =
        d.js("return getComputedStyle(document.querySelector(\"[data-sq='2d']\")).backgroundColor");
    assert_ne!(shading, json!("rgb(246, 220, 164)"));
    assert_ne!(
        shading,
        json!("rgb(232, 194, 122)"),
        "the last move is shaded"
    );

    // A game with drops and promotions, loaded from the USI line the page copies.
    let usi = "position startpos moves 2e5b 5a5b 1e1b 2a1b P*3b B*4b 3b3a+";
    d.js(&format!(
        "document.getElementById('sfen-input').value = '{usi}'; return true"
    ));
    d.click("#setup");
    d.wait(
        "the loaded game",
        "return document.querySelectorAll('#movelist li').length === 7",
    );
    let last = d.js("return document.querySelector('#movelist li:last-child').textContent");
    assert_eq!(last, json!("☗３一歩成"));
    // The move list's kanji come with the page: its font loads.
    d.js("document.fonts.load('14px \"Gogo Kanji\"', '銀'); return true");
    d.wait(
        "the notation font",
        "return document.fonts.check('14px \"Gogo Kanji\"', '銀')",
    );
    // KIF out, and back in: the same game.
    let kif = d.js(
        "const x = new XMLHttpRequest(); x.open('GET', document.getElementById('download').href, false); \
         x.send(); return x.responseText",
    );
    let kif = kif.as_str().unwrap().to_string();
    assert!(kif.contains("手合割：5五将棋"), "{kif}");
    assert!(kif.contains("３一歩成(32)"), "{kif}");
    d.js(&format!(
        "document.getElementById('sfen-input').value = {}; return true",
        json!(kif)
    ));
    let first_id = d.js("return location.hash");
    d.click("#setup");
    d.wait(
        "the game from its KIF",
        &format!("return location.hash !== {first_id} && document.querySelectorAll('#movelist li').length === 7"),
    );
    assert_eq!(
        d.js("return document.querySelector(\"[data-sq='3a'] .piece\").dataset.piece"),
        json!("b+P")
    );
    // Shift_JIS files decode too.
    let sjis = "[142,232,141,135,138,132,129,70,53,140,220,143,171,138,251,10,49,32,130,81,142,108,139,226,10]";
    assert_eq!(
        d.js(&format!("return decodeRecord(new Uint8Array({sjis}))")),
        json!("手合割：5五将棋\n1 ２四銀\n")
    );

    // Stepping through: Home, arrows, a click in the list, End.
    key(&d, "Home");
    d.wait(
        "the first position",
        "return document.getElementById('status').textContent.includes('move 0 of 7')",
    );
    assert_eq!(
        d.js("return document.querySelector(\"[data-sq='2e'] .piece\").dataset.piece"),
        json!("bB")
    );
    key(&d, "ArrowRight");
    key(&d, "ArrowRight");
    d.wait("move 2", "return document.querySelector('#movelist li.shown') !== null && document.querySelector('#movelist li.shown').dataset.ply === '2'");
    d.click("#movelist li[data-ply='4']");
    d.wait(
        "move 4",
        "return document.getElementById('status').textContent.includes('move 4 of 7')",
    );
    assert_eq!(
        d.js("return document.querySelector(\"[data-hand='b-P']\") !== null && document.querySelector(\"[data-sq='3b'] .piece\") === null"),
        json!(true)
    );
    // A reload keeps the game and the shown move.
    let url = d.js("return location.href");
    d.cmd("POST", "/refresh", Some(json!({})));
    d.wait(
        "the reloaded game",
        "return document.querySelectorAll('#movelist li').length === 7",
    );
    assert_eq!(d.js("return location.href"), url);
    assert_eq!(view(&d).1, 4);
    // So does leaving the page and coming back through the history.
    d.cmd("POST", "/url", Some(json!({"url": "about:blank"})));
    d.cmd("POST", "/back", Some(json!({})));
    d.wait(
        "the game again",
        "return document.querySelectorAll('#movelist li').length === 7 && document.querySelector('#movelist li.shown') !== null",
    );
    assert_eq!(d.js("return location.href"), url);
    assert_eq!(view(&d).1, 4);
    // Playing from an earlier position drops the moves after it.
    d.click("[data-hand='b-P']");
    d.click("[data-sq='2c']");
    d.wait(
        "the branch",
        "return document.querySelectorAll('#movelist li').length === 5",
    );
    let (n, shown, status) = view(&d);
    assert_eq!((n, shown), (5, 5), "{status}");
    assert!(
        !status.contains(" of "),
        "the last position is shown: {status}"
    );
    key(&d, "End");

    // Live analysis lines stay the same elements between updates (a click is never lost).
    d.click("#analyse-toggle");
    d.wait(
        "lines",
        "return document.querySelectorAll('#lines li').length >= 1",
    );
    d.js("window.firstLine = document.querySelector('#lines li'); return true");
    std::thread::sleep(std::time::Duration::from_millis(800));
    assert_eq!(
        d.js("return window.firstLine === document.querySelector('#lines li')"),
        json!(true)
    );
    // The review pauses it, says so, and New game clears what both showed.
    d.click("#review");
    d.wait(
        "the review",
        "return document.getElementById('review-text').textContent !== ''",
    );
    assert!(d
        .js("return document.getElementById('message').textContent")
        .as_str()
        .unwrap()
        .contains("pauses"));
    d.js("document.getElementById('human').value = 'w'; document.getElementById('opponent').value = 'computer-easy'; return true");
    d.js("document.getElementById('sfen-input').value = 'position sfen 2k2/5/5/5/2K2 w Gg 1'; return true");
    d.click("#setup");
    d.wait(
        "the new game",
        "return document.querySelectorAll('#movelist li').length === 0",
    );
    assert_eq!(
        d.js("return [document.getElementById('review-text').textContent, document.getElementById('an-stats').textContent, document.querySelectorAll('#lines li').length]"),
        json!(["", "", 0])
    );

    // Playing as gote: the board is flipped and the top hand (sente's) faces down the board.
    let rotated =
        "return getComputedStyle(document.querySelector('#hand-top .handpiece svg')).transform";
    let upright =
        "return getComputedStyle(document.querySelector('#hand-bottom .handpiece svg')).transform";
    assert_eq!(
        d.js("return document.getElementById('hand-top').dataset.color"),
        json!("b")
    );
    assert_eq!(d.js(rotated), json!("matrix(-1, 0, 0, -1, 0, 0)"));
    assert_eq!(d.js(upright), json!("none"));
    d.click("#flip");
    assert_eq!(
        d.js("return document.getElementById('hand-top').dataset.color"),
        json!("w")
    );
    assert_eq!(d.js(rotated), json!("matrix(-1, 0, 0, -1, 0, 0)"));
    assert_eq!(d.js(upright), json!("none"));
    assert_eq!(
        d.js("return document.querySelector('#hand-top .side-label').textContent"),
        json!("☖ Gote")
    );

    // A long game's move list scrolls in its own box, showing the shown move.
    d.js("document.getElementById('opponent').value = 'friend'; return true");
    d.click("#new");
    d.wait(
        "a friend game",
        "return G.opponent === 'friend' && G.ply === 0",
    );
    d.js("(async () => { for (let i = 0; i < 40 && G.legal.length; i++) \
            await playMoves([G.legal[(i * 7) % G.legal.length].usi]); window.longDone = true; })(); return true");
    d.wait("a long game", "return window.longDone === true");
    let scroll = d.js(
        "const ol = document.getElementById('movelist'); const li = ol.querySelector('li.shown'); \
         const o = ol.getBoundingClientRect(), r = li.getBoundingClientRect(); \
         return [ol.children.length > 15, ol.scrollHeight > ol.clientHeight, ol.scrollTop > 0, \
                 r.top >= o.top - 1 && r.bottom <= o.bottom + 1]",
    );
    assert_eq!(scroll, json!([true, true, true, true]));
    // The interface in Japanese.
    d.js("const l = document.getElementById('lang'); l.value = 'ja'; l.dispatchEvent(new Event('change')); return true");
    assert_eq!(
        d.js("return [document.getElementById('new').textContent, document.documentElement.lang]"),
        json!(["新規対局", "ja"])
    );
    d.js("const l = document.getElementById('lang'); l.value = 'en'; l.dispatchEvent(new Event('change')); return true");

    // A phone-sized window: pieces stay inside their squares and the page inside the screen.
    d.window(390, 844);
    d.wait("the phone layout", "return window.innerWidth <= 400");
    let fit = d.js(
        "const piece = document.querySelector('#board .piece'); \
         const c = piece.closest('.cell').getBoundingClientRect(); \
         const p = piece.getBoundingClientRect(); \
         return [p.width < c.width - 4, p.height < c.height - 4, document.documentElement.scrollWidth <= window.innerWidth, \
                 document.querySelector('header').getBoundingClientRect().height < 100]",
    );
    assert_eq!(fit, json!([true, true, true, true]));
    drop(d);
    server.shutdown();
    eprintln!(
        "gui_browser records: done in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
