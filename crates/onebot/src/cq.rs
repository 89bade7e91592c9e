//! CQ codes: the string form of OneBot v11 messages.
//!
//! A CQ string is text with embedded codes `[CQ:type,key=value,...]`. In text,
//! `&`, `[` and `]` are escaped as `&amp;`, `&#91;` and `&#93;`; inside a code's
//! values `,` is also escaped, as `&#44;` (OneBot 11 `message/string.md`).
//!
//! Every function here is total: any input, however malformed, gives a
//! result and never panics. A `[CQ:` that is not closed, or has an empty
//! type, is kept as text.

use serde_json::{Map, Value};

/// Escapes text for the outside of a CQ code (`&`, `[`, `]`).
pub fn escape_text(text: &str) -> String {
    escape(text, false)
}

/// Escapes a CQ code's parameter value (`&`, `[`, `]`, `,`).
pub fn escape_param(value: &str) -> String {
    escape(value, true)
}

fn escape(text: &str, comma: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            ',' if comma => out.push_str("&#44;"),
            c => out.push(c),
        }
    }
    out
}

/// Decodes `&amp;`, `&#91;`, `&#93;` and `&#44;`, in one pass (so `&amp;#91;`
/// decodes to the literal `&#91;`). Any other `&` is kept as is.
pub fn unescape(text: &str) -> String {
    const ENTITIES: [(&str, char); 4] = [
        ("&amp;", '&'),
        ("&#91;", '['),
        ("&#93;", ']'),
        ("&#44;", ','),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        match ENTITIES.iter().find(|(e, _)| tail.starts_with(e)) {
            Some((entity, c)) => {
                out.push(*c);
                rest = &tail[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parses a CQ string into OneBot segment objects
/// (`{"type": ..., "data": {...}}`), in order. Text between codes becomes
/// `text` segments (unescaped; empty runs are skipped); every code parameter
/// value is an unescaped string, as CQ codes carry no types. A parameter
/// without `=` gets an empty value; a repeated key keeps its last value.
pub fn parse(input: &str) -> Vec<Value> {
    let mut segments = Vec::new();
    let mut text = String::new();
    let mut rest = input;
    while let Some(start) = rest.find("[CQ:") {
        let after = &rest[start + 4..];
        let Some(end) = after.find(']') else {
            break;
        };
        let body = &after[..end];
        let mut parts = body.split(',');
        let raw_kind = parts.next().unwrap_or_default().trim();
        if raw_kind.is_empty() || raw_kind.contains('[') {
            // Not a code: keep `[CQ:` as text and scan on after it.
            text.push_str(&rest[..start + 4]);
            rest = after;
            continue;
        }
        text.push_str(&rest[..start]);
        flush_text(&mut segments, &mut text);
        let mut data = Map::new();
        for part in parts {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            if key.is_empty() {
                continue;
            }
            data.insert(unescape(key), Value::String(unescape(value)));
        }
        segments.push(segment_value(&unescape(raw_kind), data));
        rest = &after[end + 1..];
    }
    text.push_str(rest);
    flush_text(&mut segments, &mut text);
    segments
}

fn flush_text(segments: &mut Vec<Value>, text: &mut String) {
    if !text.is_empty() {
        let mut data = Map::new();
        data.insert("text".into(), Value::String(unescape(text)));
        segments.push(segment_value("text", data));
        text.clear();
    }
}

fn segment_value(kind: &str, data: Map<String, Value>) -> Value {
    let mut seg = Map::new();
    seg.insert("type".into(), Value::String(kind.to_owned()));
    seg.insert("data".into(), Value::Object(data));
    Value::Object(seg)
}

/// Encodes OneBot segment objects as a CQ string: `text` segments as escaped
/// text, others as `[CQ:type,key=value,...]` with escaped values (numbers
/// and booleans as their JSON text, nested values as compact JSON, `null`
/// skipped). Entries that are not segment objects are skipped.
pub fn encode(segments: &[Value]) -> String {
    let mut out = String::new();
    for seg in segments {
        let Some(kind) = seg.get("type").and_then(Value::as_str) else {
            continue;
        };
        let data = seg.get("data").and_then(Value::as_object);
        if kind == "text" {
            if let Some(text) = data.and_then(|d| d.get("text")).and_then(Value::as_str) {
                out.push_str(&escape_text(text));
            }
            continue;
        }
        out.push_str("[CQ:");
        out.push_str(&escape_param(kind));
        for (key, value) in data.into_iter().flatten() {
            let value = match value {
                Value::Null => continue,
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.push(',');
            out.push_str(&escape_param(key));
            out.push('=');
            out.push_str(&escape_param(&value));
        }
        out.push(']');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn escapes_round_trip() {
        let s = "a&b[c]d,e &amp; &#91;";
        assert_eq!(escape_text(s), "a&amp;b&#91;c&#93;d,e &amp;amp; &amp;#91;");
        assert_eq!(
            escape_param(s),
            "a&amp;b&#91;c&#93;d&#44;e &amp;amp; &amp;#91;"
        );
        assert_eq!(unescape(&escape_text(s)), s);
        assert_eq!(unescape(&escape_param(s)), s);
        assert_eq!(unescape("&amp;#91;"), "&#91;");
        assert_eq!(unescape("& &x; &#9"), "& &x; &#9");
    }

    #[test]
    fn parses_codes_and_text() {
        let segs = parse(
            "早上好[CQ:image,file=a.jpg,url=https://x/y?a=1&amp;b=2]看 &#91;这&#93;[CQ:at,qq=all]",
        );
        assert_eq!(
            segs,
            vec![
                json!({"type":"text","data":{"text":"早上好"}}),
                json!({"type":"image","data":{"file":"a.jpg","url":"https://x/y?a=1&b=2"}}),
                json!({"type":"text","data":{"text":"看 [这]"}}),
                json!({"type":"at","data":{"qq":"all"}}),
            ]
        );
    }

    #[test]
    fn commas_and_equals_in_values() {
        let segs = parse("[CQ:json,data={\"a\":1&#44;\"b\":\"x=y\"}]");
        assert_eq!(
            segs,
            vec![json!({"type":"json","data":{"data":"{\"a\":1,\"b\":\"x=y\"}"}})]
        );
    }

    #[test]
    fn malformed_input_is_text() {
        assert_eq!(
            parse("x [CQ:image,file=a"),
            vec![json!({"type":"text","data":{"text":"x [CQ:image,file=a"}})]
        );
        assert_eq!(
            parse("[CQ:]"),
            vec![json!({"type":"text","data":{"text":"[CQ:]"}})]
        );
        assert_eq!(
            parse("[CQ:[CQ:face,id=1]"),
            vec![
                json!({"type":"text","data":{"text":"[CQ:"}}),
                json!({"type":"face","data":{"id":"1"}}),
            ]
        );
        assert_eq!(
            parse("[CQ:shake][CQ:poke,,=x,flag]"),
            vec![
                json!({"type":"shake","data":{}}),
                json!({"type":"poke","data":{"flag":""}}),
            ]
        );
        assert!(parse("").is_empty());
    }

    #[test]
    fn total_on_arbitrary_input() {
        // Every prefix of tricky strings, cut at every char boundary.
        let samples = [
            "[CQ:at,qq=1]&#91;[CQ:",
            "]]][[[&&&#;CQ:,=,]",
            "中文[CQ:face,id=😀]&amp",
            "[CQ:a,b=c[CQ:d]e]",
            "[CQ:a&amp;b&#44;c, k&#61;=v]x",
        ];
        for s in samples {
            for (i, _) in s.char_indices().chain([(s.len(), ' ')]) {
                let prefix = &s[..i];
                let segs = parse(prefix);
                let again = parse(&encode(&segs));
                assert_eq!(again, segs, "{prefix:?}");
            }
        }
    }

    #[test]
    fn encodes_segments() {
        let segs = vec![
            json!({"type":"text","data":{"text":"a[1],b&"}}),
            json!({"type":"at","data":{"qq":10001,"name":null}}),
            json!({"type":"image","data":{"file":"base64://AA==,x"}}),
            json!("not a segment"),
        ];
        assert_eq!(
            encode(&segs),
            "a&#91;1&#93;,b&amp;[CQ:at,qq=10001][CQ:image,file=base64://AA==&#44;x]"
        );
    }
}
