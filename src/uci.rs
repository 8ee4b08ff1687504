//! The UCI dialect: minishogi spoken the way Fairy-Stockfish speaks it in UCI mode, so that
//! chess GUIs and match runners (cutechess-cli, pychess-style clients) can play the engine.
//!
//! This module is a pure text translation layer. It depends on nothing but the standard
//! library: the USI loop feeds each UCI input line through [`input_to_usi`] and handles the
//! resulting USI lines as usual, and passes each USI line it would print through
//! [`output_to_uci`].
//!
//! The conventions, each checked against the Fairy-Stockfish binary (`uci`,
//! `setoption name UCI_Variant value minishogi`):
//!
//! * Colours: `w` (white) is sente, the side that moves first and is written in upper case;
//!   `b` (black) is gote. So `wtime`/`winc` are sente's clock and `btime`/`binc` gote's, the
//!   other way round from USI.
//! * Squares: chess coordinates seen from sente: files `a`..`e` from sente's left, ranks
//!   `1`..`5` from sente's side. USI `5e` (sente's king square) is `a1`, USI `1a` is `e5`.
//! * Moves: `c1d2`; a promotion ends in `+` (`a4a1+`); a drop is `P@c3` with the piece letter
//!   in upper case for both sides (never `P*`). `(none)` stands for "no move" (USI `resign`).
//! * FEN: the board field is exactly the SFEN board (both start at sente's left corner of
//!   gote's back rank: `a5` = USI `5a`), with promoted men as `+P`, `+S`, `+B`, `+R`. The hands
//!   follow in brackets, each man repeated (no counts), sente's in upper case first, in the
//!   order gold, pawn, silver, rook, bishop (Fairy-Stockfish's piece-type order):
//!   `[GPPSsb]`; empty hands are `[]` (`[-]` is read as empty too). Then the side to move, the
//!   castling and en-passant fields `- -`, the half-move clock and the full-move number:
//!   start position `rbsgk/4p/5/P4/KGSBR[] w - - 0 1`.
//! * Move numbers: a FEN full-move number `N` with side `s` is the SFEN move count
//!   `2 * (N - 1) + (1 if gote to move) + 1`; SFEN count `M` becomes full-move
//!   `1 + (max(M - 1, 0) - (1 if gote to move)) / 2` (integer division towards zero), exactly
//!   as Fairy-Stockfish converts them. The half-move clock has no SFEN counterpart: it is
//!   written as 0 and ignored on input.
//! * `score mate N` counts moves, not plies: `N` plies becomes `(N + 1) / 2` moves, and `-N`
//!   plies `-(N + 1) / 2` (Fairy-Stockfish prints `mate 2` in UCI where it prints `mate 3` in
//!   USI, and `mate -1` for USI `mate -2`).

/// Piece letters that may be dropped (upper case), for both notations.
const DROP_LETTERS: &[u8] = b"PSGBR";

/// The hand order Fairy-Stockfish writes in FEN holdings (gold, pawn, silver, rook, bishop).
const FEN_HAND_ORDER: [u8; 5] = *b"GPSRB";

/// The canonical SFEN hand order (rook, bishop, gold, silver, pawn).
const SFEN_HAND_ORDER: [u8; 5] = *b"RBGSP";

/// No side may hold more men of one kind than the game has (two of each).
const MAX_IN_HAND: u32 = 2;

/// Keywords of `go` (UCI and USI), used to find where a `searchmoves` list ends.
const GO_KEYWORDS: [&str; 15] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "byoyomi",
    "perft",
    "quit",
];

// ------------------------------------------------------------------------------- squares

/// USI square (`5e`) to UCI (`a1`).
fn usi_square_to_uci(file: u8, rank: u8) -> Option<[u8; 2]> {
    if !(b'1'..=b'5').contains(&file) || !(b'a'..=b'e').contains(&rank) {
        return None;
    }
    Some([b'a' + (b'5' - file), b'1' + (b'e' - rank)])
}

/// UCI square (`a1`) to USI (`5e`).
fn uci_square_to_usi(file: u8, rank: u8) -> Option<[u8; 2]> {
    if !(b'a'..=b'e').contains(&file) || !(b'1'..=b'5').contains(&rank) {
        return None;
    }
    Some([b'5' - (file - b'a'), b'e' - (rank - b'1')])
}

fn push_square(out: &mut String, sq: [u8; 2]) {
    out.push(sq[0] as char);
    out.push(sq[1] as char);
}

// ------------------------------------------------------------------------------- moves

/// A USI move (`3e2d`, `5b5e+`, `P*2c`) in UCI notation (`c1d2`, `a4a1+`, `P@d3`). Checks the
/// syntax only (squares on the 5x5 board, distinct origin and destination, a droppable piece
/// letter); `None` for anything else, including `resign`.
pub fn usi_move_to_uci(m: &str) -> Option<String> {
    let b = m.as_bytes();
    let mut out = String::with_capacity(5);
    if b.len() == 4 && b[1] == b'*' {
        if !DROP_LETTERS.contains(&b[0]) {
            return None;
        }
        out.push(b[0] as char);
        out.push('@');
        push_square(&mut out, usi_square_to_uci(b[2], b[3])?);
        return Some(out);
    }
    let promote = match b.len() {
        4 => false,
        5 if b[4] == b'+' => true,
        _ => return None,
    };
    let from = usi_square_to_uci(b[0], b[1])?;
    let to = usi_square_to_uci(b[2], b[3])?;
    if from == to {
        return None;
    }
    push_square(&mut out, from);
    push_square(&mut out, to);
    if promote {
        out.push('+');
    }
    Some(out)
}

/// A UCI move (`c1d2`, `a4a1+`, `P@d3`) in USI notation (`3e2d`, `5b5e+`, `P*2c`). Checks
/// the syntax only. Also accepted: a trailing `=` (declining a promotion, the same as no
/// suffix, as Fairy-Stockfish reads it) and a lower-case drop letter (`p@d3`, which
/// Fairy-Stockfish would not take).
pub fn uci_move_to_usi(m: &str) -> Option<String> {
    let b = m.as_bytes();
    let mut out = String::with_capacity(5);
    if b.len() == 4 && b[1] == b'@' {
        let letter = b[0].to_ascii_uppercase();
        if !DROP_LETTERS.contains(&letter) {
            return None;
        }
        out.push(letter as char);
        out.push('*');
        push_square(&mut out, uci_square_to_usi(b[2], b[3])?);
        return Some(out);
    }
    let promote = match b.len() {
        4 => false,
        5 if b[4] == b'+' => true,
        5 if b[4] == b'=' => false,
        _ => return None,
    };
    let from = uci_square_to_usi(b[0], b[1])?;
    let to = uci_square_to_usi(b[2], b[3])?;
    if from == to {
        return None;
    }
    push_square(&mut out, from);
    push_square(&mut out, to);
    if promote {
        out.push('+');
    }
    Some(out)
}

// ------------------------------------------------------------------------------- FEN / SFEN

/// Hands: `counts[0]` sente's, `counts[1]` gote's, indexed like `DROP_LETTERS`.
type Hands = [[u32; 5]; 2];

fn hand_slot(c: char) -> Option<(usize, usize)> {
    let upper = c.to_ascii_uppercase() as u8;
    let kind = DROP_LETTERS
        .iter()
        .position(|&l| l == upper && c.is_ascii())?;
    let side = if c.is_ascii_uppercase() { 0 } else { 1 };
    Some((side, kind))
}

fn add_to_hand(hands: &mut Hands, c: char, n: u32) -> Result<(), String> {
    let (side, kind) = hand_slot(c).ok_or_else(|| format!("'{c}' cannot be in hand"))?;
    let slot = &mut hands[side][kind];
    *slot += n;
    if *slot > MAX_IN_HAND {
        return Err(format!("{} '{c}' in hand (at most {MAX_IN_HAND})", *slot));
    }
    Ok(())
}

fn write_hands(hands: &Hands, order: &[u8; 5], counts: bool) -> String {
    let mut s = String::new();
    for (side, hand) in hands.iter().enumerate() {
        for &letter in order {
            let kind = DROP_LETTERS.iter().position(|&l| l == letter).unwrap_or(0);
            let n = hand[kind];
            if n == 0 {
                continue;
            }
            let c = if side == 0 {
                letter as char
            } else {
                letter.to_ascii_lowercase() as char
            };
            if counts {
                if n > 1 {
                    s.push_str(&n.to_string());
                }
                s.push(c);
            } else {
                s.extend(std::iter::repeat_n(c, n as usize));
            }
        }
    }
    s
}

/// Checks a board field (the same in FEN and SFEN) and writes it in canonical form (runs of
/// empty squares merged into one digit).
fn normalize_board(board: &str) -> Result<String, String> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 5 {
        return Err(format!(
            "the board needs 5 ranks separated by '/', found {}",
            ranks.len()
        ));
    }
    let mut out = String::with_capacity(board.len());
    for (r, text) in ranks.iter().enumerate() {
        if r > 0 {
            out.push('/');
        }
        let mut squares = 0u32;
        let mut empty = 0u32;
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 {
                    return Err("'0' in the board".to_string());
                }
                squares += d;
                empty += d;
                if squares > 5 {
                    break;
                }
                continue;
            }
            let (promoted, letter) = if c == '+' {
                let n = chars.next().ok_or("'+' at the end of a rank")?;
                if !"PSBRpsbr".contains(n) {
                    return Err(format!("'+{n}' is not a promoted man"));
                }
                (true, n)
            } else {
                if !"PSGBRKpsgbrk".contains(c) {
                    return Err(format!("'{c}' is not a minishogi man"));
                }
                (false, c)
            };
            if empty > 0 {
                out.push_str(&empty.to_string());
                empty = 0;
            }
            if promoted {
                out.push('+');
            }
            out.push(letter);
            squares += 1;
        }
        if squares != 5 {
            return Err(format!(
                "rank {} of the board has {squares} squares, not 5",
                r + 1
            ));
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
    }
    Ok(out)
}

fn parse_number(text: &str, what: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) || text.len() > 12 {
        return Err(format!("'{text}' is not a valid {what}"));
    }
    text.parse::<u64>()
        .map_err(|_| format!("'{text}' is not a valid {what}"))
}

/// A FEN in Fairy-Stockfish's minishogi format to an SFEN (canonical hand order, always with a
/// move count). Accepted: `board[hands] side [castling [ep]] [halfmove] [fullmove]`, where the
/// hands may also be written as a sixth rank (`.../KGSBR/Pp`), `-` in the hands is ignored,
/// and a count before a letter (`[2P]`) repeats it. With only one number after the side it is
/// taken as the full-move number (cutechess writes `rbsgk/4p/5/P4/KGSBR[-] w - 1`). Only the
/// syntax is checked (and that no side holds more than two men of a kind); the rules of the
/// position are left to the engine.
pub fn fen_to_sfen(fen: &str) -> Result<String, String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let Some(&first) = fields.first() else {
        return Err("empty FEN".to_string());
    };
    let (board, holdings) = match first.find('[') {
        Some(open) => {
            let rest = &first[open + 1..];
            let close = rest
                .find(']')
                .ok_or("the hands in the FEN lack a closing ']'")?;
            if close + 1 != rest.len() {
                return Err("text after the ']' of the hands".to_string());
            }
            (&first[..open], &rest[..close])
        }
        None if first.split('/').count() == 6 => {
            let cut = first.rfind('/').unwrap_or(first.len());
            (&first[..cut], &first[cut + 1..])
        }
        None => (first, ""),
    };
    let board = normalize_board(board).map_err(|e| format!("bad FEN board: {e}"))?;

    let mut hands: Hands = [[0; 5]; 2];
    let mut count: Option<u32> = None;
    for c in holdings.chars() {
        if let Some(d) = c.to_digit(10) {
            let n = count.unwrap_or(0) * 10 + d;
            if n > MAX_IN_HAND {
                return Err(format!("bad FEN hands '{holdings}': count too large"));
            }
            count = Some(n);
            continue;
        }
        if c == '-' {
            if count.is_some() {
                return Err(format!("bad FEN hands '{holdings}'"));
            }
            continue;
        }
        let n = count.take().unwrap_or(1);
        if n == 0 {
            return Err(format!("bad FEN hands '{holdings}': count 0"));
        }
        add_to_hand(&mut hands, c, n).map_err(|e| format!("bad FEN hands: {e}"))?;
    }
    if count.is_some() {
        return Err(format!(
            "bad FEN hands '{holdings}': a count without a piece"
        ));
    }

    let gote = match fields.get(1) {
        Some(&"w") => false,
        Some(&"b") => true,
        Some(s) => return Err(format!("bad FEN side to move '{s}' (w = sente, b = gote)")),
        None => return Err("the FEN lacks the side to move".to_string()),
    };
    // Castling and en-passant fields, if present, are `-`.
    let mut rest = &fields[2..];
    let mut skipped = 0;
    while skipped < 2 && rest.first() == Some(&"-") {
        rest = &rest[1..];
        skipped += 1;
    }
    let fullmove = match rest {
        [] => 1,
        [full] => parse_number(full, "full-move number")?,
        [half, full] => {
            parse_number(half, "half-move clock")?;
            parse_number(full, "full-move number")?
        }
        _ => {
            return Err(format!(
                "unexpected FEN field '{}'",
                rest.first().copied().unwrap_or("")
            ))
        }
    };
    let ply = 2 * fullmove.max(1).saturating_sub(1) + u64::from(gote);
    let move_number = ply + 1;
    if move_number > u64::from(u32::MAX) {
        return Err(format!("full-move number {fullmove} is too large"));
    }

    let mut hand = write_hands(&hands, &SFEN_HAND_ORDER, true);
    if hand.is_empty() {
        hand.push('-');
    }
    Ok(format!(
        "{board} {} {hand} {move_number}",
        if gote { 'w' } else { 'b' }
    ))
}

/// An SFEN (`board side hands [move count]`) to a FEN in Fairy-Stockfish's minishogi format:
/// `board[hands] side - - 0 fullmove`, with the hands in Fairy-Stockfish's order. Only the
/// syntax is checked.
pub fn sfen_to_fen(sfen: &str) -> Result<String, String> {
    let fields: Vec<&str> = sfen.split_whitespace().collect();
    if fields.is_empty() {
        return Err("empty SFEN".to_string());
    }
    if fields.len() > 4 {
        return Err(format!("SFEN with {} fields (at most 4)", fields.len()));
    }
    let board = normalize_board(fields[0]).map_err(|e| format!("bad SFEN board: {e}"))?;
    let gote = match fields.get(1) {
        Some(&"b") => false,
        Some(&"w") => true,
        Some(s) => return Err(format!("bad SFEN side to move '{s}' (b = sente, w = gote)")),
        None => return Err("the SFEN lacks the side to move".to_string()),
    };
    let mut hands: Hands = [[0; 5]; 2];
    let hand_text = fields.get(2).copied().unwrap_or("-");
    if hand_text != "-" {
        let mut count: Option<u32> = None;
        for c in hand_text.chars() {
            if let Some(d) = c.to_digit(10) {
                let n = count.unwrap_or(0) * 10 + d;
                if n > MAX_IN_HAND {
                    return Err(format!("bad SFEN hands '{hand_text}': count too large"));
                }
                count = Some(n);
                continue;
            }
            let n = count.take().unwrap_or(1);
            if n == 0 {
                return Err(format!("bad SFEN hands '{hand_text}': count 0"));
            }
            add_to_hand(&mut hands, c, n).map_err(|e| format!("bad SFEN hands: {e}"))?;
        }
        if count.is_some() {
            return Err(format!(
                "bad SFEN hands '{hand_text}': a count without a piece"
            ));
        }
    }
    let move_number = match fields.get(3) {
        Some(n) => parse_number(n, "SFEN move count")?,
        None => 1,
    };
    let ply = move_number.saturating_sub(1);
    // Fairy-Stockfish: 1 + (gamePly - (side == black)) / 2, truncating towards zero.
    let fullmove = 1 + (ply as i64 - i64::from(gote)) / 2;
    Ok(format!(
        "{board}[{}] {} - - 0 {fullmove}",
        write_hands(&hands, &FEN_HAND_ORDER, false),
        if gote { 'b' } else { 'w' }
    ))
}

// ------------------------------------------------------------------------------- input

fn convert_moves_to_usi(moves: &[&str]) -> Result<Vec<String>, String> {
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            uci_move_to_usi(m).ok_or_else(|| {
                format!(
                    "move {} '{}' is not a UCI move (expected e.g. c1d2, a4a1+ or P@d3)",
                    i + 1,
                    m.chars().take(20).collect::<String>()
                )
            })
        })
        .collect()
}

fn translate_position(args: &[&str]) -> Result<String, String> {
    let moves_at = args.iter().position(|a| *a == "moves");
    let head = &args[..moves_at.unwrap_or(args.len())];
    let mut out = match head.first() {
        Some(&"startpos") if head.len() == 1 => "position startpos".to_string(),
        Some(&"startpos") => return Err("position: unexpected text after startpos".into()),
        Some(&"fen") => {
            let sfen = fen_to_sfen(&head[1..].join(" ")).map_err(|e| format!("position: {e}"))?;
            format!("position sfen {sfen}")
        }
        // Fairy-Stockfish also takes an SFEN in UCI mode (moves still in UCI notation).
        Some(&"sfen") => format!("position {}", head.join(" ")),
        Some(other) => {
            return Err(format!(
                "position: expected 'startpos' or 'fen', got '{}'",
                other.chars().take(40).collect::<String>()
            ))
        }
        None => return Err("position: expected 'startpos' or 'fen'".into()),
    };
    if let Some(at) = moves_at {
        let moves = convert_moves_to_usi(&args[at + 1..]).map_err(|e| format!("position: {e}"))?;
        if !moves.is_empty() {
            out.push_str(" moves ");
            out.push_str(&moves.join(" "));
        }
    }
    Ok(out)
}

fn translate_go(args: &[&str]) -> Result<String, String> {
    let mut out: Vec<String> = vec!["go".to_string()];
    let has_depth = args.contains(&"depth");
    let mut i = 0;
    while i < args.len() {
        let tok = args[i];
        i += 1;
        match tok {
            // UCI white = sente = USI black.
            "wtime" => out.push("btime".into()),
            "btime" => out.push("wtime".into()),
            "winc" => out.push("binc".into()),
            "binc" => out.push("winc".into()),
            "searchmoves" => {
                out.push(tok.into());
                let start = i;
                while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                    i += 1;
                }
                let moves = convert_moves_to_usi(&args[start..i])
                    .map_err(|e| format!("searchmoves: {e}"))?;
                out.extend(moves);
            }
            // UCI `go mate N` asks for a mate in N moves and still wants a `bestmove`; USI
            // `go mate` is a different command (tsume search answered by `checkmate`), so it
            // becomes a search of the 2N - 1 plies such a mate takes (unless a depth is given).
            "mate" => {
                let n = args
                    .get(i)
                    .and_then(|v| v.parse::<u64>().ok())
                    .ok_or_else(|| {
                        format!(
                            "go: mate needs a number of moves, got '{}'",
                            args.get(i)
                                .copied()
                                .unwrap_or("")
                                .chars()
                                .take(20)
                                .collect::<String>()
                        )
                    })?;
                i += 1;
                if !has_depth {
                    out.push("depth".into());
                    out.push((2 * n.clamp(1, 100) - 1).to_string());
                }
            }
            _ => out.push(tok.into()),
        }
    }
    Ok(out.join(" "))
}

fn translate_setoption(args: &[&str]) -> Result<String, String> {
    let Some(name_at) = args.iter().position(|a| *a == "name") else {
        // Let the engine explain what is missing.
        return Ok(format!("setoption {}", args.join(" ")));
    };
    let value_at = args.iter().position(|a| *a == "value");
    let name_end = value_at.unwrap_or(args.len()).max(name_at + 1);
    let name = args[name_at + 1..name_end].join(" ");
    let value = value_at.map(|v| args[v + 1..].join(" "));
    let usi_name = match name.to_ascii_lowercase().as_str() {
        "hash" => "USI_Hash".to_string(),
        "ponder" => "USI_Ponder".to_string(),
        "uci_variant" => {
            let v = value.as_deref().unwrap_or("");
            if !v.eq_ignore_ascii_case("minishogi") {
                return Err(format!(
                    "UCI_Variant: variant '{}' is not supported; only minishogi",
                    v.chars().take(40).collect::<String>()
                ));
            }
            "USI_Variant".to_string()
        }
        _ => name,
    };
    Ok(match value {
        Some(v) => format!("setoption name {usi_name} value {v}"),
        None => format!("setoption name {usi_name}"),
    })
}

/// Translates one UCI input line into the equivalent USI line(s) for the engine: `uci` ->
/// `usi`, `ucinewgame` -> `usinewgame`, `position startpos|fen <fen> [moves ...]` ->
/// `position startpos|sfen <sfen> [moves ...]` with the moves converted, `go` with
/// `wtime`/`btime` and `winc`/`binc` swapped (UCI white is sente, USI black) and
/// `searchmoves` converted (`go mate N` becomes `go depth 2N-1`), `setoption name Hash|Ponder|
/// UCI_Variant` -> `USI_Hash|USI_Ponder|USI_Variant`. `debug` and `register` are dropped (an
/// empty list); a blank line gives an empty list; anything else (`isready`, `stop`,
/// `ponderhit`, `quit`, `d`, `perft`, other options ...) passes through unchanged. An error
/// (a bad FEN or move, an unsupported variant) is `Err(message)`, to be reported as
/// `info string <message>`; the engine's state must then stay as it was.
pub fn input_to_usi(line: &str) -> Result<Vec<String>, String> {
    let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&cmd, args)) = tokens.split_first() else {
        return Ok(Vec::new());
    };
    let usi = match cmd {
        "uci" => "usi".to_string(),
        "ucinewgame" => "usinewgame".to_string(),
        "debug" | "register" => return Ok(Vec::new()),
        "position" => translate_position(args)?,
        "go" => translate_go(args)?,
        "setoption" => translate_setoption(args)?,
        _ => line.to_string(),
    };
    Ok(vec![usi])
}

// ------------------------------------------------------------------------------- output

/// USI mate distance in plies to UCI moves, as Fairy-Stockfish counts them.
fn mate_plies_to_moves(plies: i64) -> i64 {
    if plies >= 0 {
        (plies + 1) / 2
    } else {
        -((-plies + 1) / 2)
    }
}

/// The USI option name as UCI calls it; `None` for options that mean nothing in UCI.
fn option_name_to_uci(name: &str) -> Option<&str> {
    match name {
        "USI_Hash" => Some("Hash"),
        "USI_Ponder" => Some("Ponder"),
        "USI_Variant" => Some("UCI_Variant"),
        "USI_MultiPV" => Some("MultiPV"),
        n if n.starts_with("USI_") => None,
        n => Some(n),
    }
}

fn translate_option(line: &str, tokens: &[&str]) -> String {
    // option name <id...> type <t> ...
    if tokens.get(1) != Some(&"name") {
        return line.to_string();
    }
    let type_at = tokens
        .iter()
        .position(|t| *t == "type")
        .unwrap_or(tokens.len());
    if type_at <= 2 {
        return line.to_string();
    }
    let name = tokens[2..type_at].join(" ");
    match option_name_to_uci(&name) {
        None => String::new(),
        Some(n) if n == name => line.to_string(),
        Some(n) => {
            let mut out = format!("option name {n}");
            for t in &tokens[type_at..] {
                out.push(' ');
                out.push_str(t);
            }
            out
        }
    }
}

fn translate_bestmove(tokens: &[&str]) -> String {
    let best = match tokens.get(1) {
        Some(m) => usi_move_to_uci(m).unwrap_or_else(|| "(none)".to_string()),
        None => "(none)".to_string(),
    };
    let mut out = format!("bestmove {best}");
    if best != "(none)" && tokens.get(2) == Some(&"ponder") {
        if let Some(p) = tokens.get(3).and_then(|p| usi_move_to_uci(p)) {
            out.push_str(" ponder ");
            out.push_str(&p);
        }
    }
    out
}

fn translate_info(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut rest = line;
    let mut prev = "";
    let mut in_moves = false;
    let mut first = true;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let tok = &rest[..end];
        if !first {
            out.push(' ');
        }
        first = false;
        if tok == "string" {
            // The rest of the line is free text: keep it exactly.
            out.push_str(rest);
            break;
        }
        if in_moves && prev == "currline" && tok.bytes().all(|b| b.is_ascii_digit()) {
            // `currline <cpunr> <moves>`: the CPU number is not a move.
            out.push_str(tok);
            rest = &rest[end..];
            continue;
        }
        let converted = if in_moves || prev == "currmove" {
            usi_move_to_uci(tok)
        } else if prev == "mate" && out.ends_with("score mate ") {
            tok.parse::<i64>()
                .ok()
                .map(|n| mate_plies_to_moves(n).to_string())
        } else {
            None
        };
        match converted {
            Some(c) => out.push_str(&c),
            None => {
                in_moves = false;
                out.push_str(tok);
            }
        }
        if matches!(tok, "pv" | "refutation" | "currline") {
            in_moves = true;
        }
        prev = tok;
        rest = &rest[end..];
    }
    out
}

/// Translates one USI output line of the engine into UCI: `usiok` -> `uciok`; `option`
/// lines with `USI_Hash`, `USI_Ponder`, `USI_Variant` renamed `Hash`, `Ponder`,
/// `UCI_Variant` (other `USI_` options make no sense in UCI and give an empty string, which
/// the caller must not print); `bestmove <usi> [ponder <usi>]` in UCI notation (`resign`, or
/// anything that is not a move, becomes `(none)`); `info` lines with the moves after `pv`,
/// `currmove`, `refutation` and `currline` converted and `score mate N` turned from plies into
/// moves; `info string ...` and every other line unchanged.
pub fn output_to_uci(line: &str) -> String {
    let line = line.trim_end_matches(['\r', '\n']);
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match tokens.first() {
        Some(&"usiok") => "uciok".to_string(),
        Some(&"option") => translate_option(line, &tokens),
        Some(&"bestmove") => translate_bestmove(&tokens),
        Some(&"info") if tokens.get(1) != Some(&"string") => translate_info(line),
        _ => line.to_string(),
    }
}
