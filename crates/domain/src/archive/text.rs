//! How the archive indexes text so that any substring of two or more
//! characters, Chinese included, is found through an index.
//!
//! Chinese has no spaces between words, so word tokenizers (SQLite FTS5's
//! `unicode61`, PostgreSQL's parsers) see a whole sentence as one token,
//! and FTS5's `trigram` tokenizer indexes only queries of three or more
//! characters. The archive indexes character bigrams instead: the folded
//! text `我们开会` becomes one token per character, naming it and the
//! character after it (`我们`, `们开`, `开会`, and `会` alone at the end).
//! A query of two or more characters is then the phrase of its own bigrams
//! in a row (`开会` is one token; `明天开会` is `明天 天开 开会` at
//! consecutive positions), which holds exactly when the query is a substring
//! of the text; a one-character query is a prefix of the tokens that start
//! with it. Tokens are written as ASCII (the hexadecimal code points joined
//! by `x`: `5f00x4f1a`), so any tokenizer that splits on spaces keeps them
//! whole.

use std::collections::BTreeSet;

/// The form text is matched in: lower case, so `Hello` finds `hello`.
pub fn fold(text: &str) -> String {
    text.to_lowercase()
}

fn hex(c: char) -> String {
    format!("{:x}", c as u32)
}

fn bigram(a: char, b: char) -> String {
    format!("{:x}x{:x}", a as u32, b as u32)
}

fn last(c: char) -> String {
    format!("{:x}x", c as u32)
}

/// The index tokens of folded text in order, joined by spaces: one per
/// character (see the module docs). Empty text has none.
pub fn tokens(folded: &str) -> String {
    let chars: Vec<char> = folded.chars().collect();
    let mut out = String::with_capacity(chars.len() * 10);
    for (i, c) in chars.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match chars.get(i + 1) {
            Some(next) => out.push_str(&bigram(*c, *next)),
            None => out.push_str(&last(*c)),
        }
    }
    out
}

/// The distinct grams of folded text, for an index of sets (PostgreSQL's
/// GIN over an array): every character (`u<hex>`) and every bigram.
pub fn gram_set(folded: &str) -> Vec<String> {
    let chars: Vec<char> = folded.chars().collect();
    let mut set = BTreeSet::new();
    for (i, c) in chars.iter().enumerate() {
        set.insert(format!("u{}", hex(*c)));
        if let Some(next) = chars.get(i + 1) {
            set.insert(bigram(*c, *next));
        }
    }
    set.into_iter().collect()
}

/// The grams a folded query needs all of (for [`gram_set`] indexes): its
/// bigrams, or its one character. Empty for an empty query.
pub fn query_grams(folded: &str) -> Vec<String> {
    let chars: Vec<char> = folded.chars().collect();
    match chars.as_slice() {
        [] => Vec::new(),
        [c] => vec![format!("u{}", hex(*c))],
        _ => chars
            .windows(2)
            .map(|w| bigram(w[0], w[1]))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    }
}

/// The SQLite FTS5 query that matches folded texts containing the folded
/// query (over [`tokens`]): the phrase of its bigrams, or the prefix of one
/// character. `None` for an empty query.
pub fn fts_query(folded: &str) -> Option<String> {
    let chars: Vec<char> = folded.chars().collect();
    match chars.as_slice() {
        [] => None,
        [c] => Some(format!("{}*", last(*c))),
        _ => {
            let grams: Vec<String> = chars.windows(2).map(|w| bigram(w[0], w[1])).collect();
            Some(format!("\"{}\"", grams.join(" ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_name_each_character_and_the_next() {
        assert_eq!(tokens(""), "");
        assert_eq!(tokens("a"), "61x");
        assert_eq!(tokens("开会"), "5f00x4f1a 4f1ax");
        assert_eq!(fts_query("开会").unwrap(), "\"5f00x4f1a\"");
        assert_eq!(
            fts_query("明天开会").unwrap(),
            "\"660ex5929 5929x5f00 5f00x4f1a\""
        );
        assert_eq!(fts_query("开").unwrap(), "5f00x*");
        assert_eq!(fts_query(""), None);
        assert_eq!(fold("Hello 开会"), "hello 开会");
    }

    #[test]
    fn grams_cover_every_substring() {
        let text = fold("我们明天下午开会吧");
        let set = gram_set(&text);
        let chars: Vec<char> = text.chars().collect();
        for start in 0..chars.len() {
            for end in start + 1..=chars.len() {
                let q: String = chars[start..end].iter().collect();
                for g in query_grams(&q) {
                    assert!(set.contains(&g), "{q}: {g}");
                }
            }
        }
        assert_eq!(query_grams("开"), vec!["u5f00".to_string()]);
        assert!(query_grams("").is_empty());
        // A repeated bigram is asked for once.
        assert_eq!(query_grams("哈哈哈").len(), 1);
    }
}
