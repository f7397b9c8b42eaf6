//! A validating JSON scanner over one record line's bytes. It reads the few
//! fields the index keeps and skips everything else without building a
//! value, so a 100 MB stream is indexed at memory speed: most of its bytes
//! are inside long strings (tool results), which are skipped sixteen bytes
//! at a time with no allocation.

/// A line that is not a JSON record. What is wrong with it is said in the
/// parser's words (the index reads a refused line again with the parser).
pub struct ScanError;

pub type Scan<T> = Result<T, ScanError>;

/// A string token: its bytes between the quotes, and whether it has escapes.
#[derive(Clone, Copy)]
pub struct Str {
    pub start: usize,
    pub end: usize,
    pub escaped: bool,
}

pub struct Cursor<'a> {
    pub b: &'a [u8],
    pub i: usize,
    /// A string held an escape the parser may refuse (see [`Cursor::string`]).
    pub suspect: bool,
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Cursor { b, i: 0, suspect: false }
    }

    pub fn fail<T>(&self) -> Scan<T> {
        Err(ScanError)
    }

    #[inline]
    pub fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    #[inline]
    fn eat(&mut self, c: u8) -> Scan<()> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            self.fail()
        }
    }

    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// A string token (the cursor on its opening quote).
    pub fn string(&mut self) -> Scan<Str> {
        self.eat(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            // The hot loop: plain bytes of a long string.
            self.i += plain_run(&self.b[self.i..]);
            match self.b.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(Str { start, end: self.i - 1, escaped });
                }
                Some(b'\\') => {
                    escaped = true;
                    self.i += 1;
                    match self.b.get(self.i) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                        Some(b'u') if self.b.get(self.i + 1..self.i + 5).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) => {
                            // \uDxxx may be half of a surrogate pair alone (D800-DFFF),
                            // which the parser refuses: it reads the line again, and says
                            // it. (D000-D7FF too: rarely escaped, and the check is a byte.)
                            self.suspect |= self.b[self.i + 1] | 0x20 == b'd';
                            self.i += 5
                        }
                        _ => return self.fail(),
                    }
                }
                // Non-ASCII: its UTF-8 is checked here, as the string is
                // walked (the stream is not checked as a whole first).
                Some(c) if *c >= 0x80 => {
                    let run = self.b[self.i..].iter().position(|&c| c < 0x80).unwrap_or(self.b.len() - self.i);
                    if std::str::from_utf8(&self.b[self.i..self.i + run]).is_err() {
                        return self.fail();
                    }
                    self.i += run;
                }
                Some(_) => return self.fail(),
                None => return self.fail(),
            }
        }
    }

    /// A number token's text, checked against JSON's grammar.
    pub fn number(&mut self) -> Scan<&'a [u8]> {
        self.ws();
        let start = self.i;
        let digits = |c: &mut Self| {
            let s = c.i;
            while c.b.get(c.i).is_some_and(u8::is_ascii_digit) {
                c.i += 1;
            }
            c.i - s
        };
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        let int = digits(self);
        if int == 0 || (int > 1 && self.b[self.i - int] == b'0') {
            return self.fail();
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return self.fail();
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return self.fail();
            }
        }
        Ok(&self.b[start..self.i])
    }

    fn literal(&mut self, word: &'static [u8]) -> Scan<()> {
        if self.b.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            Ok(())
        } else {
            self.fail()
        }
    }

    /// `true`, `false` or `None` for anything else (skipped).
    pub fn boolean(&mut self) -> Scan<Option<bool>> {
        match self.peek() {
            Some(b't') => self.literal(b"true").map(|_| Some(true)),
            Some(b'f') => self.literal(b"false").map(|_| Some(false)),
            _ => self.skip().map(|_| None),
        }
    }

    /// A whole number (a JSON integer, or a float with a zero fraction) up
    /// to 2^53; `None` for anything else, which is skipped.
    pub fn whole(&mut self) -> Scan<Option<f64>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => Ok(whole_of(self.number()?)),
            _ => self.skip().map(|_| None),
        }
    }

    /// A string value, or `None` for `null` and anything else (skipped).
    pub fn opt_string(&mut self) -> Scan<Option<Str>> {
        match self.peek() {
            Some(b'"') => self.string().map(Some),
            _ => self.skip().map(|_| None),
        }
    }

    /// Skips one value, checking its syntax. Nesting is bounded so a hostile
    /// line cannot exhaust the stack.
    pub fn skip(&mut self) -> Scan<()> {
        self.skip_at(0)
    }

    fn skip_at(&mut self, depth: u32) -> Scan<()> {
        if depth > 512 {
            return self.fail();
        }
        match self.peek() {
            Some(b'"') => self.string().map(|_| ()),
            Some(b'{') => self.object(|c, _| c.skip_at(depth + 1)),
            Some(b'[') => self.array(|c| c.skip_at(depth + 1)),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number().map(|_| ()),
            Some(_) => self.fail(),
            None => self.fail(),
        }
    }

    /// Walks an array, calling `item(cursor)` with the cursor on each item;
    /// `item` must consume it.
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Scan<()>) -> Scan<()> {
        self.eat(b'[')?;
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return self.fail(),
            }
        }
    }

    /// Walks an object, calling `field(cursor, key)` with the cursor on each
    /// value; `field` must consume the value.
    pub fn object(&mut self, mut field: impl FnMut(&mut Self, &'a [u8]) -> Scan<()>) -> Scan<()> {
        self.eat(b'{')?;
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
            // Keys the index looks for never need unescaping.
            field(self, &self.b[key.start..key.end])?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return self.fail(),
            }
        }
    }

    /// Calls `found(str)` for every string that is a value (not a key) in
    /// the value under the cursor.
    pub fn strings(&mut self, found: &mut dyn FnMut(&Self, Str), depth: u32) -> Scan<()> {
        if depth > 512 {
            return self.fail();
        }
        match self.peek() {
            Some(b'"') => {
                let s = self.string()?;
                found(self, s);
                Ok(())
            }
            Some(b'{') => self.object(|c, _| c.strings(found, depth + 1)),
            Some(b'[') => self.array(|c| c.strings(found, depth + 1)),
            _ => self.skip_at(depth),
        }
    }
}

/// How many bytes of `s` precede the first quote, backslash, control
/// character or non-ASCII byte: sixteen at a time with WebAssembly SIMD
/// (the scanner spends most of its time inside long tool results). One
/// signed compare finds control characters and non-ASCII bytes both (as
/// `i8`, a byte from 0x80 is negative). Measured against the word-wide
/// version below (alternating builds, Node 20): `TrajectoryIndex.fromJsonl`
/// of the 106 MB string-heavy stream 80-83 -> 71-73 ms from its bytes,
/// 99-105 -> 94-97 ms from its text; of the 78 MB one of small records,
/// 177-186 -> 163-172 ms from its bytes.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn plain_run(s: &[u8]) -> usize {
    use core::arch::wasm32::{i8x16_bitmask, i8x16_eq, i8x16_lt, i8x16_splat, v128, v128_load, v128_or};
    let mut i = 0;
    while i + 16 <= s.len() {
        // SAFETY: bytes i..i + 16 are in `s`; v128_load takes any alignment.
        let v = unsafe { v128_load(s.as_ptr().add(i).cast::<v128>()) };
        let stop = v128_or(v128_or(i8x16_eq(v, i8x16_splat(b'"' as i8)), i8x16_eq(v, i8x16_splat(b'\\' as i8))), i8x16_lt(v, i8x16_splat(0x20)));
        let found = i8x16_bitmask(stop);
        if found != 0 {
            return i + found.trailing_zeros() as usize;
        }
        i += 16;
    }
    i + s[i..].iter().position(|&c| stops(c)).unwrap_or(s.len() - i)
}

/// Whether a string's plain run stops at byte `c`: a quote, a backslash, a
/// control character or a non-ASCII byte.
fn stops(c: u8) -> bool {
    c == b'"' || c == b'\\' || !(0x20..0x80).contains(&c)
}

/// [`plain_run`] without SIMD (native builds, for the tests): eight bytes
/// at a time, by a word-wide test.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn plain_run(s: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // Bytes below `n` (n <= 128) in `x`: the classic has-less-than test.
    let below = |x: u64, n: u64| x.wrapping_sub(LO * n) & !x & HI;
    let mut i = 0;
    while let Some(chunk) = s.get(i..i + 8) {
        let w = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
        if below(w ^ (LO * 0x22), 1) | below(w ^ (LO * 0x5c), 1) | below(w, 0x20) | (w & HI) != 0 {
            break;
        }
        i += 8;
    }
    i + s[i..].iter().position(|&c| stops(c)).unwrap_or(s.len() - i)
}

/// The value of an integer-valued number token, exact up to 2^53.
fn whole_of(text: &[u8]) -> Option<f64> {
    let (neg, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let mut n: u64 = 0;
    let mut rest = digits;
    while let Some((&c, r)) = rest.split_first() {
        if !c.is_ascii_digit() {
            break;
        }
        // Past 2^53 it is not exact anyway: stopping there also keeps
        // `n * 10` far from overflow, so no checked (128-bit, on wasm32)
        // multiply runs per digit.
        if n > crate::number::MAX_SAFE_INTEGER {
            return None;
        }
        n = n * 10 + u64::from(c - b'0');
        rest = r;
    }
    // "12.0" is whole; "12.5" and exponents are not.
    if let Some((b'.', frac)) = rest.split_first() {
        if !frac.iter().all(|&c| c == b'0') {
            return None;
        }
    } else if !rest.is_empty() {
        return None;
    }
    if n > crate::number::MAX_SAFE_INTEGER {
        return None;
    }
    Some(if neg { -(n as f64) } else { n as f64 })
}

/// Unescapes a JSON string's body (already validated by [`Cursor::string`]).
pub fn unescape(raw: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = raw[i + 1];
        i += 2;
        let ch = match e {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = |at: usize| raw.get(at..at + 4).and_then(|h| u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
                let hi = unit(i).unwrap_or(0xfffd);
                i += 4;
                let code = if (0xd800..0xdc00).contains(&hi) && raw.get(i..i + 2) == Some(b"\\u") {
                    match unit(i + 2) {
                        Some(lo) if (0xdc00..0xe000).contains(&lo) => {
                            i += 6;
                            0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                        }
                        _ => hi,
                    }
                } else {
                    hi
                };
                char::from_u32(code).unwrap_or('\u{fffd}')
            }
            other => other as char,
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skips(s: &str) -> bool {
        let mut c = Cursor::new(s.as_bytes());
        c.skip().is_ok() && c.at_end()
    }

    #[test]
    fn skips_valid_json_and_refuses_broken_json() {
        for ok in [r#"{"a":[1,-2.5e3,true,false,null,{"b":"x\"y\u00e9"}],"c":{}}"#, "[]", "0", r#""\/""#] {
            assert!(skips(ok), "{ok}");
        }
        for bad in [r#"{"a":}"#, r#"{"a" 1}"#, "[1,]", "01", "1.", "-", r#""\x""#, "\"a\u{1}\"", "tru", r#"{"a":1"#, "\"abc"] {
            assert!(!skips(bad), "{bad}");
        }
    }

    #[test]
    fn an_escaped_half_of_a_surrogate_pair_makes_the_line_suspect() {
        for (s, suspect) in [(r#""\ud83d\ude00""#, true), (r#""\uDE00""#, true), (r#""\u00e9\u0041""#, false), (r#""\ud83d""#, true)] {
            let mut c = Cursor::new(s.as_bytes());
            assert!(c.skip().is_ok() && c.at_end() && c.suspect == suspect, "{s}");
        }
    }

    #[test]
    fn plain_runs_stop_at_quotes_backslashes_control_characters_and_non_ascii() {
        for (s, n) in [
            ("abcdefghij\"", 10),
            ("abc\\d", 3),
            ("abcdefgh\u{1}", 8),
            ("é and more plain text", 0),
            ("plain text, and é", 16),
            ("", 0),
            ("0123456789abcdef\"x", 16),
        ] {
            assert_eq!(plain_run(s.as_bytes()), n, "{s:?}");
        }
    }

    #[test]
    fn whole_numbers_are_exact_and_others_are_none() {
        assert_eq!(whole_of(b"42"), Some(42.0));
        assert_eq!(whole_of(b"-3"), Some(-3.0));
        assert_eq!(whole_of(b"7.000"), Some(7.0));
        assert_eq!(whole_of(b"7.5"), None);
        assert_eq!(whole_of(b"1e3"), None);
        assert_eq!(whole_of(b"9007199254740992"), None);
        assert_eq!(whole_of(b"9007199254740991"), Some(9_007_199_254_740_991.0));
        assert_eq!(whole_of(b"-123456789012345678901234567890"), None);
        assert_eq!(whole_of(b"99999999999999999999999"), None);
    }

    #[test]
    fn unescapes_every_escape_and_surrogate_pairs() {
        let mut out = Vec::new();
        unescape(br#"a\n\t\"\\\/\u00e9\ud83d\ude00\ud800x"#, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "a\n\t\"\\/é😀\u{fffd}x");
    }

    #[test]
    fn visits_value_strings_not_keys() {
        let line = br#"{"k":"v","o":{"n":["a",{"d":"b"}],"x":1}}"#;
        let mut c = Cursor::new(line);
        let mut seen = Vec::new();
        assert!(c.strings(&mut |c, s| seen.push(String::from_utf8(c.b[s.start..s.end].to_vec()).unwrap()), 0).is_ok());
        assert_eq!(seen, ["v", "a", "b"]);
    }
}
