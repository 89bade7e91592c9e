//! The JavaScript number rules of the tool arguments.
//!
//! Tool arguments read numbers as JavaScript does: `count`/`limit` are
//! used when `typeof x === "number"` and finite, truncated towards zero,
//! then clamped; `groupId` strings go through `Number()`.
//! [`js_number`] implements `Number(string)` (ECMAScript `StringToNumber`):
//! surrounding JS white space trimmed, empty is 0, `0x`/`0o`/`0b` integers,
//! `Infinity`, decimal literals with exponents; anything else is NaN. A JSON
//! number too large for a double (`1e400`) is what `JSON.parse` makes
//! Infinity: not finite.

use serde_json::Value;

/// Largest integer a JavaScript number holds exactly (`2^53 - 1`): ids
/// converted from strings above it would name a rounded, different id.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A JSON number that is an integer in `i64` range, exactly (`20.0` counts,
/// as in JSON Schema).
pub fn exact_int(v: &Value) -> Option<i64> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    // 2^63 is the first double outside i64; every double below it in
    // magnitude with no fraction converts exactly.
    (f.fract() == 0.0 && f.abs() < 9_223_372_036_854_775_808.0).then_some(f as i64)
}

/// A finite double that is an integer in `[1, MAX_SAFE_INTEGER]`.
pub fn safe_positive(n: f64) -> Option<i64> {
    (n.fract() == 0.0 && n >= 1.0 && n <= MAX_SAFE_INTEGER as f64).then_some(n as i64)
}

/// A finite double that is an integer in `[-MAX_SAFE_INTEGER,
/// MAX_SAFE_INTEGER]`.
pub fn safe_integer(n: f64) -> Option<i64> {
    (n.is_finite() && n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER as f64).then_some(n as i64)
}

/// `s` without the white space JavaScript `Number()` ignores around it.
pub fn trim_js(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// ECMAScript `StrWhiteSpaceChar`: WhiteSpace and LineTerminator.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// JavaScript `Number(s)` for a string (ECMAScript `StringToNumber`).
pub fn js_number(s: &str) -> f64 {
    let s = trim_js(s);
    if s.is_empty() {
        return 0.0;
    }
    for (prefixes, radix) in [(["0x", "0X"], 16), (["0o", "0O"], 8), (["0b", "0B"], 2)] {
        if let Some(digits) = prefixes.iter().find_map(|p| s.strip_prefix(p)) {
            return radix_integer(digits, radix);
        }
    }
    let (sign, unsigned) = if let Some(rest) = s.strip_prefix('+') {
        (1.0, rest)
    } else if let Some(rest) = s.strip_prefix('-') {
        (-1.0, rest)
    } else {
        (1.0, s)
    };
    if unsigned == "Infinity" {
        return sign * f64::INFINITY;
    }
    if !is_unsigned_decimal(unsigned) {
        return f64::NAN;
    }
    // The grammar is checked; Rust's parser rounds correctly (as ECMAScript
    // requires) and accepts every form the grammar allows.
    unsigned.parse::<f64>().map_or(f64::NAN, |n| sign * n)
}

/// `NonDecimalIntegerLiteral` digits (no separators) in `radix`, rounded to
/// the nearest double; NaN when empty or a digit is out of range.
fn radix_integer(digits: &str, radix: u32) -> f64 {
    if digits.is_empty() {
        return f64::NAN;
    }
    let mut exact: Option<u128> = Some(0);
    let mut approx = 0.0f64;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else {
            return f64::NAN;
        };
        exact = exact
            .and_then(|v| v.checked_mul(u128::from(radix)))
            .and_then(|v| v.checked_add(u128::from(d)));
        approx = approx * f64::from(radix) + f64::from(d);
    }
    // u128 → f64 rounds to nearest; beyond u128 the running double is close
    // enough for every use here (such ids are refused anyway).
    exact.map_or(approx, |v| v as f64)
}

/// `StrUnsignedDecimalLiteral` without `Infinity`: `1`, `1.`, `1.5`, `.5`,
/// each with an optional exponent `e[+-]?digits`.
fn is_unsigned_decimal(s: &str) -> bool {
    let (int, rest) = split_digits(s);
    let (frac, rest) = match rest.strip_prefix('.') {
        Some(r) => split_digits(r),
        None => ("", rest),
    };
    if int.is_empty() && frac.is_empty() {
        return false;
    }
    match rest.strip_prefix(['e', 'E']) {
        Some(r) => {
            let (exp, tail) = split_digits(r.strip_prefix(['+', '-']).unwrap_or(r));
            !exp.is_empty() && tail.is_empty()
        }
        None => rest.is_empty(),
    }
}

/// Splits leading ASCII digits off `s`.
fn split_digits(s: &str) -> (&str, &str) {
    s.find(|c: char| !c.is_ascii_digit())
        .map_or((s, ""), |i| s.split_at(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Number(s)` as node 22 computes it (the expected values were produced
    /// by running `Number(s)` in node for each input).
    #[test]
    fn js_number_matches_javascript() {
        let cases: &[(&str, f64)] = &[
            ("", 0.0),
            ("  ", 0.0),
            (" 20000002 ", 20000002.0),
            ("\u{9}\u{a}\u{b}\u{c}\u{d} 7 \u{2028}\u{2029}", 7.0),
            ("\u{a0}12\u{feff}", 12.0),
            ("\u{3000}12\u{3000}", 12.0),
            ("\u{85} 12", f64::NAN),
            ("\u{180e}12", f64::NAN),
            ("12\u{200b}", f64::NAN),
            ("0x10", 16.0),
            ("0X1f", 31.0),
            ("0o17", 15.0),
            ("0O17", 15.0),
            ("0b101", 5.0),
            ("0B11", 3.0),
            ("-0x10", f64::NAN),
            ("+0x10", f64::NAN),
            ("0x", f64::NAN),
            ("0x1g", f64::NAN),
            ("0b2", f64::NAN),
            ("0o8", f64::NAN),
            ("0x10 ", 16.0),
            (" 0b1 ", 1.0),
            ("0xFFFFFFFFFFFFFFFFFFFF", 1.2089258196146292e24),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1e+3", 1000.0),
            ("1e-3", 0.001),
            ("1e", f64::NAN),
            ("e3", f64::NAN),
            ("1e+", f64::NAN),
            ("5e", f64::NAN),
            ("1.", 1.0),
            (".5", 0.5),
            (".", f64::NAN),
            ("+.5", 0.5),
            ("-.5e1", -5.0),
            ("+", f64::NAN),
            ("-", f64::NAN),
            ("+-1", f64::NAN),
            ("--1", f64::NAN),
            ("Infinity", f64::INFINITY),
            ("+Infinity", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("infinity", f64::NAN),
            ("inf", f64::NAN),
            ("NaN", f64::NAN),
            ("Infinity1", f64::NAN),
            ("12abc", f64::NAN),
            ("1_000", f64::NAN),
            ("1,000", f64::NAN),
            ("00012", 12.0),
            ("-0", -0.0),
            ("0", 0.0),
            ("1 2", f64::NAN),
            ("\u{ff11}\u{ff12}", f64::NAN),
            ("\u{661}\u{662}", f64::NAN),
            ("20000002.5", 20000002.5),
            ("20000002.0", 20000002.0),
            ("9007199254740993", 9007199254740992.0),
            ("1e400", f64::INFINITY),
            ("-1e400", f64::NEG_INFINITY),
            ("0.1e-400", 0.0),
            ("123456789012345678901234567890", 1.2345678901234568e29),
            ("0.0000001", 1e-7),
            ("0x1.8", f64::NAN),
            ("1e1.5", f64::NAN),
            (".e1", f64::NAN),
            ("0.e1", 0.0),
        ];
        for (input, expected) in cases {
            let got = js_number(input);
            if expected.is_nan() {
                assert!(got.is_nan(), "Number({input:?}) = {got}, want NaN");
            } else {
                assert_eq!(got, *expected, "Number({input:?})");
                assert_eq!(
                    got.is_sign_negative(),
                    expected.is_sign_negative(),
                    "sign of Number({input:?})"
                );
            }
        }
    }
}
