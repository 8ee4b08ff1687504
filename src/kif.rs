//! KIF, the record format shogi programs share, for minishogi as lishogi writes it: a
//! `手合割：5五将棋` header, a 5-column board diagram when the game starts from a set-up
//! position, then one numbered move a line (`   1 ２四銀(25)`), destination in full-width file
//! digits and kanji ranks (一..五 on this board), `同` for a recapture, `打` for a drop, `成` /
//! `不成`, and the origin square in parentheses.
//!
//! [`write`] makes a record of a [`Game`]; [`read`] reads one back (UTF-8 text; the browser
//! board decodes Shift_JIS files before they get here); [`japanese_moves`] gives the move list
//! in the usual Japanese notation for display. Rules core only: no I/O.

use crate::game::{EndReason, Game, GameResult};
use crate::movegen;
use crate::position::{Position, START_SFEN};
use crate::types::{Color, Move, Piece, PieceKind, Square};
use std::fmt;

const FILES: [char; 5] = ['１', '２', '３', '４', '５'];
const RANKS: [char; 5] = ['一', '二', '三', '四', '五'];
const NUMBERS: [char; 10] = ['一', '二', '三', '四', '五', '六', '七', '八', '九', '十'];

/// Who played, for the header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub event: String,
    pub sente: String,
    pub gote: String,
}

/// A record read back: the game and its header.
#[derive(Clone, Debug)]
pub struct Record {
    pub game: Game,
    pub header: Header,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KifError {
    /// The `手合割` names another variant than minishogi (and no board says otherwise).
    Handicap(String),
    /// A board diagram line that is not 5 squares of pieces.
    Board { line: usize },
    /// A hand that cannot be read.
    Hand { line: usize },
    /// The position of the diagram is not a legal minishogi position.
    Position(String),
    /// A move that cannot be read, or is illegal where it stands.
    Move { number: usize, text: String },
    /// Nothing that looks like a KIF record.
    Empty,
}

impl fmt::Display for KifError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KifError::Handicap(h) => write!(f, "not a minishogi record (手合割：{h})"),
            KifError::Board { line } => write!(f, "line {line}: bad board diagram"),
            KifError::Hand { line } => write!(f, "line {line}: bad pieces in hand"),
            KifError::Position(e) => write!(f, "bad start position: {e}"),
            KifError::Move { number, text } => write!(f, "move {number}: cannot play {text:?}"),
            KifError::Empty => write!(f, "no KIF header, board or move found"),
        }
    }
}

impl std::error::Error for KifError {}

/// The kanji of a kind in a move (`成銀` for a promoted silver).
fn move_name(k: PieceKind) -> &'static str {
    match k {
        PieceKind::King => "玉",
        PieceKind::Gold => "金",
        PieceKind::Silver => "銀",
        PieceKind::Bishop => "角",
        PieceKind::Rook => "飛",
        PieceKind::Pawn => "歩",
        PieceKind::Tokin => "と",
        PieceKind::ProSilver => "成銀",
        PieceKind::Horse => "馬",
        PieceKind::Dragon => "龍",
    }
}

/// The one kanji of a kind on a board diagram.
fn board_char(k: PieceKind) -> char {
    match k {
        PieceKind::ProSilver => '全',
        other => move_name(other).chars().next().unwrap_or('？'),
    }
}

fn kind_of_name(s: &str) -> Option<(PieceKind, usize)> {
    const NAMES: [(&str, PieceKind); 13] = [
        ("成銀", PieceKind::ProSilver),
        ("玉", PieceKind::King),
        ("王", PieceKind::King),
        ("金", PieceKind::Gold),
        ("銀", PieceKind::Silver),
        ("角", PieceKind::Bishop),
        ("飛", PieceKind::Rook),
        ("歩", PieceKind::Pawn),
        ("と", PieceKind::Tokin),
        ("全", PieceKind::ProSilver),
        ("馬", PieceKind::Horse),
        ("龍", PieceKind::Dragon),
        ("竜", PieceKind::Dragon),
    ];
    NAMES
        .iter()
        .find(|(n, _)| s.starts_with(n))
        .map(|&(n, k)| (k, n.len()))
}

fn square_text(sq: Square) -> String {
    format!(
        "{}{}",
        FILES[sq.file() as usize - 1],
        RANKS[sq.rank() as usize]
    )
}

/// A count in kanji: 一 .. 十九 (larger counts, which no minishogi position has, in digits).
fn kanji_number(n: u8) -> String {
    match n {
        0 => String::new(),
        1..=10 => NUMBERS[n as usize - 1].to_string(),
        11..=19 => format!("十{}", NUMBERS[(n - 11) as usize]),
        _ => n.to_string(),
    }
}

fn parse_kanji_number(s: &str) -> Option<u8> {
    let digit = |c: char| NUMBERS.iter().position(|&d| d == c).map(|i| i as u8 + 1);
    let cs: Vec<char> = s.chars().collect();
    match cs.as_slice() {
        [] => Some(1),
        [a] => digit(*a),
        ['十', b] => Some(10 + digit(*b)?),
        _ => None,
    }
}

/// How a move is written: (KIF text with its origin, display text).
fn move_texts(pos: &Position, m: Move, prev_to: Option<Square>) -> (String, String) {
    let to = m.to();
    let dest = if prev_to == Some(to) {
        "同　".to_string()
    } else {
        square_text(to)
    };
    let legal = movegen::legal_moves(pos);
    if m.is_drop() {
        let kind = m.drop_kind();
        // Display: 打 only where a piece on the board could also go there.
        let ambiguous = legal.iter().any(|&o| {
            !o.is_drop() && o.to() == to && pos.piece_on(o.from()).map(|p| p.kind) == Some(kind)
        });
        let name = move_name(kind);
        let shown = if ambiguous {
            format!("{dest}{name}打")
        } else {
            format!("{dest}{name}")
        };
        return (format!("{dest}{name}打"), shown);
    }
    let from = m.from();
    let kind = pos.piece_on(from).map_or(PieceKind::Pawn, |p| p.kind);
    let could_promote = !m.is_promotion() && legal.contains(Move::board(from, to, true));
    let suffix = if m.is_promotion() {
        "成"
    } else if could_promote {
        "不成"
    } else {
        ""
    };
    let origin = format!("({}{})", from.file(), from.rank() + 1);
    let name = move_name(kind);
    let mut others: Vec<Square> = legal
        .iter()
        .filter(|o| {
            !o.is_drop()
                && o.to() == to
                && o.from() != from
                && pos.piece_on(o.from()).map(|p| p.kind) == Some(kind)
        })
        .map(|o| o.from())
        .collect();
    others.dedup();
    let relative = relative_word(pos.side_to_move(), kind, from, to, &others)
        .unwrap_or_else(|| origin.clone());
    (
        format!("{dest}{name}{suffix}{origin}"),
        format!("{dest}{name}{relative}{suffix}"),
    )
}

/// The word that tells a move apart from the same kind's other moves to its square, as
/// Japanese notation does: 上 / 引 / 寄 when the direction alone tells it, else 直 (a gold or
/// silver straight forward), 右 or 左 (from the mover's side). `None` where none of them
/// does (three pieces in a row); the caller then writes the origin.
fn relative_word(
    side: Color,
    kind: PieceKind,
    from: Square,
    to: Square,
    others: &[Square],
) -> Option<String> {
    if others.is_empty() {
        return Some(String::new());
    }
    // Forward and rightward steps from the mover's side (sente looks up the board, its
    // right is file 1).
    let forward = |f: Square| {
        let d = i32::from(f.rank()) - i32::from(to.rank());
        (if side == Color::Black { d } else { -d }).signum()
    };
    let rightness = |f: Square| {
        let x = -i32::from(f.file());
        if side == Color::Black {
            x
        } else {
            -x
        }
    };
    let mine = forward(from);
    let vertical = match mine {
        1 => "上",
        -1 => "引",
        _ => "寄",
    };
    let same: Vec<Square> = others
        .iter()
        .copied()
        .filter(|&o| forward(o) == mine)
        .collect();
    if same.is_empty() {
        return Some(vertical.to_string());
    }
    let straight = from.file() == to.file() && mine == 1;
    let two_step = matches!(kind, PieceKind::Dragon | PieceKind::Horse);
    if straight && !two_step {
        return Some("直".to_string());
    }
    let x = rightness(from);
    if same.iter().all(|&o| rightness(o) < x) {
        Some("右".to_string())
    } else if same.iter().all(|&o| rightness(o) > x) {
        Some("左".to_string())
    } else {
        None
    }
}

/// The moves of a game from `start` in Japanese notation (`☗２四銀`, `☖同　歩`, `☗３三金打`,
/// `☗２二金右`, `☗４二銀直成`), told apart from the same kind's other moves to the square by
/// 上 / 引 / 寄 / 直 / 右 / 左 where needed.
pub fn japanese_moves(start: &Position, moves: &[Move]) -> Vec<String> {
    let mut pos = *start;
    let mut prev = None;
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        let mark = if pos.side_to_move() == Color::Black {
            '☗'
        } else {
            '☖'
        };
        out.push(format!("{mark}{}", move_texts(&pos, m, prev).1));
        pos = pos.after(m);
        prev = Some(m.to());
    }
    out
}

fn hand_text(pos: &Position, c: Color) -> String {
    let h = pos.hand(c);
    let parts: Vec<String> = [
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Gold,
        PieceKind::Silver,
        PieceKind::Pawn,
    ]
    .iter()
    .filter(|&&k| h.count(k) > 0)
    .map(|&k| {
        let n = h.count(k);
        let count = if n > 1 {
            kanji_number(n)
        } else {
            String::new()
        };
        format!("{}{count}", move_name(k))
    })
    .collect();
    if parts.is_empty() {
        "なし".to_string()
    } else {
        parts.join("　")
    }
}

fn diagram(pos: &Position) -> String {
    let mut s = format!("後手の持駒：{}\n", hand_text(pos, Color::White));
    s.push_str("  ５ ４ ３ ２ １\n+---------------+\n");
    for rank in 0..5u8 {
        s.push('|');
        for file in (1..=5u8).rev() {
            let sq = Square::from_file_rank(file, rank).expect("on the board");
            match pos.piece_on(sq) {
                Some(p) => {
                    s.push(if p.color == Color::White { 'v' } else { ' ' });
                    s.push(board_char(p.kind));
                }
                None => s.push_str(" ・"),
            }
        }
        s.push('|');
        s.push(RANKS[rank as usize]);
        s.push('\n');
    }
    s.push_str("+---------------+\n");
    s.push_str(&format!("先手の持駒：{}\n", hand_text(pos, Color::Black)));
    if pos.side_to_move() == Color::White {
        s.push_str("後手番\n");
    }
    s
}

/// The KIF record of `game`; `result`, when the game is over, adds the closing line.
pub fn write(game: &Game, header: &Header, result: Option<GameResult>) -> String {
    // The first line tells readers that expect Shift_JIS in a .kif file that this one is UTF-8.
    let mut s =
        String::from("#KIF version=2.0 encoding=UTF-8\n# KIF形式棋譜ファイル Generated by Gogo\n");
    if !header.event.is_empty() {
        s.push_str(&format!("棋戦：{}\n", one_line(&header.event)));
    }
    s.push_str("手合割：5五将棋\n");
    if game.start().to_sfen() != START_SFEN {
        s.push_str(&diagram(game.start()));
    }
    s.push_str(&format!("先手：{}\n", one_line(&header.sente)));
    s.push_str(&format!("後手：{}\n", one_line(&header.gote)));
    s.push_str("手数----指手---------消費時間--\n");
    let mut prev = None;
    for (i, (&m, pos)) in game.moves().iter().zip(game.positions()).enumerate() {
        let text = move_texts(pos, m, prev).0;
        s.push_str(&format!("{:>4} {text}   ( 0:00/00:00:00)\n", i + 1));
        prev = Some(m.to());
    }
    if let Some(r) = result {
        let n = game.moves().len();
        let last = game.current().side_to_move();
        let (word, summary) = match (r.reason, r.winner) {
            (EndReason::Checkmate | EndReason::NoLegalMove, _) => ("詰み", None),
            (EndReason::Sennichite, None) => ("千日手", Some("千日手".to_string())),
            (EndReason::Sennichite, Some(_)) => ("千日手", None),
            (EndReason::PerpetualCheck, Some(w)) if w == last => ("反則勝ち", None),
            (EndReason::PerpetualCheck, _) => ("反則負け", None),
            (EndReason::MoveLimit, _) => ("持将棋", Some("持将棋".to_string())),
        };
        s.push_str(&format!("{:>4} {word}   ( 0:00/00:00:00)\n", n + 1));
        let summary = summary.unwrap_or_else(|| match r.winner {
            Some(Color::Black) => "先手の勝ち".to_string(),
            Some(Color::White) => "後手の勝ち".to_string(),
            None => "引き分け".to_string(),
        });
        s.push_str(&format!("まで{n}手で{summary}\n"));
    }
    s
}

fn one_line(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).collect()
}

fn parse_board_row(line: &str) -> Option<[Option<Piece>; 5]> {
    let inner = line.strip_prefix('|')?;
    let inner = &inner[..inner.find('|')?];
    let cs: Vec<char> = inner.chars().collect();
    if cs.len() != 10 {
        return None;
    }
    let mut row = [None; 5];
    for (i, cell) in cs.chunks(2).enumerate() {
        let color = match cell[0] {
            'v' | 'V' => Color::White,
            ' ' | '^' | '　' => Color::Black,
            _ => return None,
        };
        if cell[1] == '・' {
            continue;
        }
        let (kind, _) = kind_of_name(&cell[1].to_string())?;
        row[i] = Some(Piece::new(color, kind));
    }
    Some(row)
}

fn parse_hand(text: &str) -> Option<Vec<(PieceKind, u8)>> {
    let text = text.trim();
    if text.is_empty() || text == "なし" {
        return Some(Vec::new());
    }
    text.split(|c: char| c == '　' || c.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            let (kind, len) = kind_of_name(t)?;
            if !PieceKind::HAND.contains(&kind) {
                return None;
            }
            Some((kind, parse_kanji_number(&t[len..])?))
        })
        .collect()
}

/// The SFEN of a board read from a diagram (men written by `Piece`'s own SFEN letter).
fn diagram_sfen(
    rows: &[[Option<Piece>; 5]],
    hands: &[(Color, PieceKind, u8)],
    side: Color,
) -> String {
    let mut s = String::new();
    for (r, row) in rows.iter().enumerate() {
        if r > 0 {
            s.push('/');
        }
        let mut empty = 0;
        for cell in row {
            match cell {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push_str(&p.to_string());
                }
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
    }
    s.push_str(if side == Color::Black { " b " } else { " w " });
    let mut hand = String::new();
    for &(c, k, n) in hands.iter().filter(|h| h.2 > 0) {
        if n > 1 {
            hand.push_str(&n.to_string());
        }
        hand.push_str(&Piece::new(c, k).to_string());
    }
    if hand.is_empty() {
        hand.push('-');
    }
    s.push_str(&hand);
    s.push_str(" 1");
    s
}

/// One move of a record (`２四銀(25)`, `同　歩(23)`, `３三金打`, `１一と(12)`, `２二銀成(33)`)
/// resolved among the legal moves of `pos`; `None` when it cannot be read or is illegal.
fn parse_move(pos: &Position, text: &str, prev_to: Option<Square>) -> Option<Move> {
    let t = text.trim();
    let (to, rest) = if let Some(rest) = t.strip_prefix('同') {
        (prev_to?, rest.trim_start_matches(['　', ' ']))
    } else {
        let mut cs = t.chars();
        let f = cs.next()?;
        let r = cs.next()?;
        let file = FILES.iter().position(|&c| c == f).or_else(|| {
            f.to_digit(10)
                .map(|d| d as usize)
                .filter(|d| (1..=5).contains(d))
                .map(|d| d - 1)
        })?;
        let rank = RANKS.iter().position(|&c| c == r)?;
        (
            Square::from_file_rank(file as u8 + 1, rank as u8)?,
            cs.as_str(),
        )
    };
    let (kind, len) = kind_of_name(rest)?;
    let rest = &rest[len..];
    let (promote, drop, rest) = if let Some(r) = rest.strip_prefix("不成") {
        (false, false, r)
    } else if let Some(r) = rest.strip_prefix('成') {
        (true, false, r)
    } else if let Some(r) = rest.strip_prefix('打') {
        (false, true, r)
    } else {
        (false, false, rest)
    };
    let origin = rest.trim().strip_prefix('(').and_then(|r| {
        let b = r.as_bytes();
        if b.len() < 3 || b[2] != b')' {
            return None;
        }
        let file = b[0].checked_sub(b'0')?;
        let rank = b[1].checked_sub(b'1')?;
        Square::from_file_rank(file, rank)
    });
    let legal = movegen::legal_moves(pos);
    let mut cands = legal.iter().copied().filter(|&m| {
        if m.to() != to {
            return false;
        }
        if m.is_drop() {
            return origin.is_none() && m.drop_kind() == kind;
        }
        !drop
            && m.is_promotion() == promote
            && origin.is_none_or(|o| o == m.from())
            && pos.piece_on(m.from()).map(|p| p.kind) == Some(kind)
    });
    let first = cands.next()?;
    // Without an origin, a board move wins over a drop only when it is the only reading.
    match cands.next() {
        None => Some(first),
        Some(_) if drop => legal
            .iter()
            .copied()
            .find(|m| m.is_drop() && m.to() == to && m.drop_kind() == kind),
        Some(_) => None,
    }
}

/// Words that end the moves of a record (resignation, mate, repetition, ...).
fn is_terminal(text: &str) -> bool {
    const WORDS: [&str; 12] = [
        "投了",
        "詰み",
        "千日手",
        "持将棋",
        "中断",
        "反則",
        "切れ負け",
        "不詰",
        "入玉",
        "封じ手",
        "不戦",
        "勝ち宣言",
    ];
    WORDS.iter().any(|w| text.starts_with(w))
}

/// Reads a KIF record (UTF-8 text).
pub fn read(text: &str) -> Result<Record, KifError> {
    let mut header = Header::default();
    let mut rows: Vec<[Option<Piece>; 5]> = Vec::new();
    let mut hands: Vec<(Color, PieceKind, u8)> = Vec::new();
    let mut side = Color::Black;
    let mut seen = false;
    let mut game: Option<Game> = None;
    let mut prev = None;
    let mut number = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start_matches('\u{feff}').trim_end();
        let lineno = i + 1;
        if line.starts_with('#') || line.starts_with('*') || line.starts_with('&') {
            continue;
        }
        if line.starts_with("変化") {
            break; // variations are not read
        }
        if line.starts_with('|') {
            let row = parse_board_row(line).ok_or(KifError::Board { line: lineno })?;
            rows.push(row);
            seen = true;
            continue;
        }
        if let Some((key, value)) = line.split_once('：').or_else(|| line.split_once(':')) {
            if !key
                .trim()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
            {
                let value = value.trim();
                match key.trim() {
                    "手合割" => {
                        seen = true;
                        // 5五将棋, ５五将棋, 五々将棋 (all seen in the wild).
                        let v = value.replace(['５', '五'], "5");
                        if !v.starts_with("55将棋") && !v.starts_with("5々将棋") {
                            return Err(KifError::Handicap(value.to_string()));
                        }
                    }
                    "先手" | "下手" => header.sente = value.to_string(),
                    "後手" | "上手" => header.gote = value.to_string(),
                    "棋戦" => header.event = value.to_string(),
                    "先手の持駒" | "下手の持駒" | "後手の持駒" | "上手の持駒" =>
                    {
                        let c = if key.starts_with('先') || key.starts_with('下') {
                            Color::Black
                        } else {
                            Color::White
                        };
                        for (k, n) in parse_hand(value).ok_or(KifError::Hand { line: lineno })? {
                            hands.push((c, k, n));
                        }
                        seen = true;
                    }
                    _ => {}
                }
                continue;
            }
        }
        if line.trim() == "後手番" || line.trim() == "上手番" {
            side = Color::White;
            continue;
        }
        // A move line: its number, then the move.
        let t = line.trim_start();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            continue;
        }
        let body = t[digits..].trim_start();
        // The move ends where its time starts: "   ( 0:00/00:00:00)".
        let body = match body.find("  ") {
            Some(at) => &body[..at],
            None => body,
        };
        let body = body.trim();
        if is_terminal(body) {
            break;
        }
        let g = match game.as_mut() {
            Some(g) => g,
            None => {
                let start = if rows.is_empty() {
                    Position::startpos()
                } else if rows.len() == 5 {
                    Position::from_sfen(&diagram_sfen(&rows, &hands, side))
                        .map_err(|e| KifError::Position(e.to_string()))?
                } else {
                    return Err(KifError::Board { line: lineno });
                };
                game.insert(Game::new(start))
            }
        };
        number += 1;
        let m = parse_move(g.current(), body, prev).ok_or_else(|| KifError::Move {
            number,
            text: body.to_string(),
        })?;
        g.play(m).map_err(|_| KifError::Move {
            number,
            text: body.to_string(),
        })?;
        prev = Some(m.to());
        seen = true;
    }
    if !seen {
        return Err(KifError::Empty);
    }
    let game = match game {
        Some(g) => g,
        None if rows.is_empty() => Game::new(Position::startpos()),
        None if rows.len() == 5 => Game::new(
            Position::from_sfen(&diagram_sfen(&rows, &hands, side))
                .map_err(|e| KifError::Position(e.to_string()))?,
        ),
        None => return Err(KifError::Board { line: 0 }),
    };
    Ok(Record { game, header })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameRules;

    fn game_of(sfen: &str, moves: &[&str]) -> Game {
        let mut g = Game::new(Position::from_sfen(sfen).unwrap());
        for m in moves {
            g.play_usi(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        g
    }

    #[test]
    fn writes_the_minishogi_header_and_moves() {
        let g = game_of(START_SFEN, &["3e2d", "3a2b", "2d2c", "2b2c"]);
        let k = write(&g, &Header::default(), None);
        assert!(k.starts_with("#KIF version=2.0 encoding=UTF-8\n"), "{k}");
        assert!(k.contains("手合割：5五将棋\n"), "{k}");
        assert!(!k.contains('|'), "no diagram for the usual start: {k}");
        assert!(k.contains("   1 ２四銀(35)"), "{k}");
        assert!(k.contains("   4 同　銀(22)"), "{k}");
    }

    #[test]
    fn round_trip_with_drops_and_promotions() {
        // Captures, recaptures, drops by both sides and a promotion.
        let g = game_of(
            START_SFEN,
            &["2e5b", "5a5b", "1e1b", "2a1b", "P*3b", "B*4b", "3b3a+"],
        );
        let k = write(&g, &Header::default(), None);
        for text in [
            "   1 ５二角(25)",
            "   2 同　飛(51)",
            "   3 １二飛(15)",
            "   4 同　金(21)",
            "   5 ３二歩打",
            "   6 ４二角打",
            "   7 ３一歩成(32)",
        ] {
            assert!(k.contains(text), "{text} in {k}");
        }
        let back = read(&k).unwrap().game;
        assert_eq!(back.moves(), g.moves());
        assert_eq!(back.current().to_sfen(), g.current().to_sfen());
    }

    #[test]
    fn round_trip_from_a_set_up_position_with_hands() {
        let g = game_of("4k/1S1P1/5/5/K4 w 2Gp 1", &["1a1b", "4b4a"]);
        let k = write(&g, &Header::default(), None);
        assert!(k.contains("後手の持駒：歩\n"), "{k}");
        assert!(k.contains("先手の持駒：金二\n"), "{k}");
        assert!(k.contains("| ・ ・ ・ ・v玉|一\n"), "{k}");
        assert!(k.contains("後手番\n"), "{k}");
        assert!(k.contains("   2 ４一銀不成(42)"), "{k}");
        let back = read(&k).unwrap().game;
        assert_eq!(back.start().to_sfen(), g.start().to_sfen());
        assert_eq!(back.moves(), g.moves());
    }

    #[test]
    fn the_result_closes_the_record() {
        let g = game_of("4k/5/4P/5/K4 b G 1", &["G*1b"]);
        let r = g.result(GameRules::default());
        assert!(r.is_some());
        let k = write(&g, &Header::default(), r);
        assert!(k.contains("   2 詰み"), "{k}");
        assert!(k.contains("まで1手で先手の勝ち"), "{k}");
        assert_eq!(read(&k).unwrap().game.moves(), g.moves());
    }

    #[test]
    fn reads_records_of_other_programs() {
        // No origins, no times, a comment, 王 and a header in another order.
        let k = "先手：A\n後手：B\n手合割：５五将棋\n*comment\n手数----指手--\n1 ２四銀\n2 １三歩\n3 投了\n4 ２三銀\n";
        let r = read(k).unwrap();
        assert_eq!(r.header.sente, "A");
        let ms: Vec<String> = r.game.moves().iter().map(|m| m.to_string()).collect();
        assert_eq!(ms, ["3e2d", "1b1c"]);
    }

    #[test]
    fn reads_both_of_lishogis_headers() {
        // Its older writer gives a board without 手合割, its reader also knows 五々将棋.
        let k = "後手：\n後手の持駒：なし\n  ５ ４ ３ ２ １\n+---------------+\n\
                 |v飛v角v銀v金v玉|一\n| ・ ・ ・ ・v歩|二\n| 歩 ・ ・ ・ ・|三\n\
                 | ・ ・ ・ ・ ・|四\n| 玉 金 銀 角 飛|五\n+---------------+\n\
                 先手の持駒：なし\n先手：先手\n後手番\n";
        let g = read(k).unwrap().game;
        assert_eq!(g.start().to_sfen(), "rbsgk/4p/P4/5/KGSBR w - 1");
        let g = read("先手：先手\n手合割：五々将棋\n1 ２四銀 (00:03/00:00:03)\n")
            .unwrap()
            .game;
        assert_eq!(g.moves().len(), 1);
        assert_eq!(g.start().to_sfen(), START_SFEN);
    }

    #[test]
    fn refuses_other_variants_and_illegal_moves() {
        assert!(matches!(read("手合割：平手\n"), Err(KifError::Handicap(_))));
        assert!(matches!(
            read("手合割：5五将棋\n   1 ３三角(25)\n"),
            Err(KifError::Move { number: 1, .. })
        ));
        assert!(matches!(read("hello"), Err(KifError::Empty)));
    }

    #[test]
    fn cut_or_garbled_records_never_panic() {
        let g = game_of("4k/1S1P1/5/5/K4 w 2Gp 1", &["1a1b", "4b4a", "P*3c", "G*3b"]);
        let k = write(&g, &Header::default(), g.result(GameRules::default()));
        let chars: Vec<(usize, char)> = k.char_indices().collect();
        for &(i, _) in &chars {
            let _ = read(&k[..i]);
            let mut bad = k.clone();
            bad.replace_range(i..i + k[i..].chars().next().map_or(0, char::len_utf8), "|");
            let _ = read(&bad);
        }
        assert_eq!(read(&k).unwrap().game.moves(), g.moves());
        assert_eq!(kanji_number(18), "十八");
        assert_eq!(parse_kanji_number("十八"), Some(18));
    }

    #[test]
    fn japanese_notation_for_display() {
        let g = game_of(
            START_SFEN,
            &["3e2d", "3a2b", "2d2c", "2b2c", "2e5b", "5a5b"],
        );
        let ja = japanese_moves(g.start(), g.moves());
        assert_eq!(
            ja,
            [
                "☗２四銀",
                "☖２二銀",
                "☗２三銀",
                "☖同　銀",
                "☗５二角",
                "☖同　飛"
            ]
        );
        let g = game_of("4k/1S1P1/5/5/K4 b G 1", &["4b4a", "1a1b", "G*2a"]);
        assert_eq!(
            japanese_moves(g.start(), g.moves()),
            ["☗４一銀不成", "☖１二玉", "☗２一金"]
        );
        // Two golds to one square: 右 / 左 for sente, the other way round for gote; 上 / 寄
        // where the direction tells them apart; 直 straight forward.
        let ja = |sfen: &str, m: &str| {
            let p = Position::from_sfen(sfen).unwrap();
            let mv = crate::notation::parse_move(&p, m).unwrap();
            japanese_moves(&p, &[mv]).remove(0)
        };
        assert_eq!(ja("k4/5/5/1G1G1/4K b - 1", "4d3c"), "☗３三金左");
        assert_eq!(ja("k4/5/5/1G1G1/4K b - 1", "2d3c"), "☗３三金右");
        assert_eq!(ja("k4/5/G4/1G3/4K b - 1", "5c4c"), "☗４三金寄");
        assert_eq!(ja("k4/5/G4/1G3/4K b - 1", "4d4c"), "☗４三金上");
        assert_eq!(ja("k4/5/5/1GG2/4K b - 1", "3d3c"), "☗３三金直");
        assert_eq!(ja("k4/5/5/1GG2/4K b - 1", "4d3c"), "☗３三金左");
        assert_eq!(ja("4k/1g1g1/5/5/K4 w - 1", "4b3c"), "☖３三金右");
    }
}
