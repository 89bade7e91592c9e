//! Cutting text into message-sized chunks.
//!
//! A chunk holds at most `max_chars` Unicode scalar values and ends at the
//! best boundary inside its window: a paragraph break, else a line break,
//! else the end of a sentence, else a space, else any grapheme boundary. A
//! boundary is taken only when it keeps the chunk at least half full, so a
//! newline early in the window does not produce a tiny chunk. Cuts never
//! fall inside a grapheme cluster (so never inside a surrogate pair, an
//! emoji sequence or a letter with combining marks); a single grapheme
//! longer than `max_chars` becomes a chunk of its own. Concatenating the
//! chunks gives back the text except for whitespace at the cuts: a chunk
//! does not start with whitespace, and whitespace-only chunks are left out
//! (QQ refuses empty messages).

use unicode_segmentation::UnicodeSegmentation;

/// Splits `text` into chunks of at most `max_chars` characters (`max_chars`
/// is at least 1).
pub fn split_text(text: &str, max_chars: usize) -> Vec<String> {
    let max = max_chars.max(1);
    let graphemes: Vec<&str> = text.graphemes(true).collect();
    // chars_before[i]: scalar values before grapheme i.
    let mut chars_before = Vec::with_capacity(graphemes.len() + 1);
    let mut count = 0usize;
    for g in &graphemes {
        chars_before.push(count);
        count += g.chars().count();
    }
    chars_before.push(count);

    let mut chunks = Vec::new();
    let mut start = 0usize;
    while start < graphemes.len() {
        // The furthest end (exclusive, in graphemes) that fits.
        let mut end = start + 1;
        while end < graphemes.len() && chars_before[end + 1] - chars_before[start] <= max {
            end += 1;
        }
        if end < graphemes.len() {
            end = best_break(&graphemes, &chars_before, start, end, max);
        }
        let chunk: String = graphemes[start..end].concat();
        if !chunk.trim().is_empty() {
            chunks.push(chunk);
        }
        start = end;
        // A chunk does not start with the spaces it was cut at.
        if start < graphemes.len() {
            while start < graphemes.len() && graphemes[start].chars().all(char::is_whitespace) {
                start += 1;
            }
        }
    }
    chunks
}

/// The best cut in `(start, end]`, by priority, keeping the chunk at least
/// half of `max`; `end` when none qualifies.
fn best_break(
    graphemes: &[&str],
    chars_before: &[usize],
    start: usize,
    end: usize,
    max: usize,
) -> usize {
    let min_len = max / 2;
    let is_break = |rank: u8, cut: usize| -> bool {
        let prev = graphemes[cut - 1];
        let next = graphemes.get(cut).copied().unwrap_or("");
        match rank {
            0 => prev == "\n" && cut >= 2 && matches!(graphemes[cut - 2], "\n" | "\r\n"),
            1 => prev == "\n" || prev == "\r\n",
            2 => {
                matches!(prev, "。" | "！" | "？" | "；" | "…")
                    || (matches!(prev, "." | "!" | "?" | ";")
                        && next.chars().all(char::is_whitespace))
            }
            _ => {
                prev.chars().all(char::is_whitespace)
                    || (!next.is_empty() && next.chars().all(char::is_whitespace))
            }
        }
    };
    for rank in 0..4u8 {
        for cut in (start + 1..=end).rev() {
            if chars_before[cut] - chars_before[start] < min_len.max(1) {
                break;
            }
            if is_break(rank, cut) {
                // Keep the spaces after a sentence with it.
                let mut cut = cut;
                while cut < end && graphemes[cut].chars().all(char::is_whitespace) {
                    cut += 1;
                }
                return cut;
            }
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, max: usize) -> Vec<String> {
        let chunks = split_text(text, max);
        for c in &chunks {
            assert!(
                c.chars().count() <= max || c.graphemes(true).count() == 1,
                "chunk over {max}: {c:?}"
            );
        }
        chunks
    }

    #[test]
    fn short_text_is_one_chunk() {
        assert_eq!(check("hello", 10), vec!["hello"]);
        assert_eq!(check("hello", 5), vec!["hello"]);
        assert!(check("", 5).is_empty());
        assert!(check("  \n ", 5).is_empty());
    }

    #[test]
    fn prefers_paragraphs_then_lines_then_sentences_then_spaces() {
        let text = "aaaa bbbb.\ncccc\n\ndddd";
        assert_eq!(check(text, 17), vec!["aaaa bbbb.\ncccc\n\n", "dddd"]);
        assert_eq!(
            check("aaaa bbbb.\ncccc dddd", 17),
            vec!["aaaa bbbb.\n", "cccc dddd"]
        );
        assert_eq!(
            check("aaaa bbbb. cccc dddd", 14),
            vec!["aaaa bbbb. ", "cccc dddd"]
        );
        assert_eq!(check("aaaa bbbb cccc", 12), vec!["aaaa bbbb ", "cccc"]);
        assert_eq!(check("hello world", 5), vec!["hello", "world"]);
        assert_eq!(
            check("你好世界。今天很好", 6),
            vec!["你好世界。", "今天很好"]
        );
        // A version number is not a sentence end.
        assert_eq!(check("v1.2 is out", 6), vec!["v1.2 ", "is out"]);
    }

    #[test]
    fn early_breaks_do_not_make_tiny_chunks() {
        assert_eq!(check("a\nbcdefghij", 6), vec!["a\nbcde", "fghij"]);
    }

    #[test]
    fn never_cuts_inside_a_grapheme() {
        // Family emoji (7 scalars, one grapheme), flags, combining marks.
        let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦";
        let text = format!("ab{family}cd");
        let chunks = check(&text, 4);
        assert_eq!(
            chunks,
            vec!["ab".to_string(), family.to_string(), "cd".to_string()]
        );
        let flags = "🇨🇳🇯🇵🇺🇸";
        let chunks = check(flags, 3);
        assert_eq!(chunks, vec!["🇨🇳", "🇯🇵", "🇺🇸"]);
        let accents = "e\u{301}e\u{301}e\u{301}";
        assert_eq!(check(accents, 3), vec!["e\u{301}", "e\u{301}", "e\u{301}"]);
    }

    #[test]
    fn counts_scalar_values_not_bytes_or_utf16_units() {
        let text = "😀".repeat(10);
        let chunks = check(&text, 4);
        assert_eq!(chunks, vec!["😀😀😀😀", "😀😀😀😀", "😀😀"]);
    }

    #[test]
    fn concatenation_gives_back_the_text() {
        let text = "第一段。这是很长的一句话，包含中文标点！\n\nSecond paragraph. It has two sentences.\nA line\twith tabs and 😀 emoji.".repeat(20);
        let visible = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        for max in [1, 2, 7, 50, 333, 2000] {
            let chunks = check(&text, max);
            assert_eq!(visible(&chunks.concat()), visible(&text), "max {max}");
            assert!(chunks.iter().all(|c| !c.starts_with(char::is_whitespace)));
        }
    }
}
