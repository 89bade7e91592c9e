//! CQ codes: the string message format (`[CQ:type,k=v,...]`) and its escapes.
//!
//! Text outside codes escapes `&` `[` `]` as `&amp;` `&#91;` `&#93;`; values inside codes also
//! escape `,` as `&#44;` (OneBot 11 `message/string.md`). Parsing never fails: anything that
//! is not a well-formed code is kept as text.

use serde_json::{Map, Value, json};

/// Parses a CQ-code string into a segment array (`[{type, data}]`); adjacent text is merged.
pub fn parse(input: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut rest = input;
    while let Some(start) = rest.find("[CQ:") {
        let Some(len) = rest[start..].find(']') else {
            break;
        };
        let body = &rest[start + 4..start + len];
        match parse_code(body) {
            Some(segment) => {
                text.push_str(&unescape_text(&rest[..start]));
                flush_text(&mut out, &mut text);
                out.push(segment);
            }
            // Not a code (e.g. `[CQ:]`): keep the raw characters as text.
            None => text.push_str(&unescape_text(&rest[..start + len + 1])),
        }
        rest = &rest[start + len + 1..];
    }
    text.push_str(&unescape_text(rest));
    flush_text(&mut out, &mut text);
    out
}

fn flush_text(out: &mut Vec<Value>, text: &mut String) {
    if !text.is_empty() {
        out.push(json!({"type": "text", "data": {"text": std::mem::take(text)}}));
    }
}

fn parse_code(body: &str) -> Option<Value> {
    let mut parts = body.split(',');
    let kind = parts.next()?.trim();
    if kind.is_empty()
        || !kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return None;
    }
    let mut data = Map::new();
    for part in parts {
        if part.is_empty() {
            continue;
        }
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        data.insert(k.trim().to_owned(), Value::String(unescape_value(v)));
    }
    Some(json!({"type": kind, "data": data}))
}

/// Renders segments as a CQ-code string (`raw_message`). Text is escaped, other segments become
/// `[CQ:type,k=v]` with keys in sorted order; non-string values are rendered as JSON text.
pub fn render(segments: &[Value]) -> String {
    let mut out = String::new();
    for seg in segments {
        let kind = seg.get("type").and_then(Value::as_str).unwrap_or("unknown");
        let data = seg.get("data").and_then(Value::as_object);
        if kind == "text" {
            let text = data
                .and_then(|d| d.get("text"))
                .and_then(Value::as_str)
                .unwrap_or("");
            out.push_str(&escape_text(text));
            continue;
        }
        out.push_str("[CQ:");
        out.push_str(kind);
        if let Some(data) = data {
            for (k, v) in data {
                if v.is_null() {
                    continue;
                }
                let v = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                out.push(',');
                out.push_str(k);
                out.push('=');
                out.push_str(&escape_value(&v));
            }
        }
        out.push(']');
    }
    out
}

/// Escapes plain text for use outside CQ codes.
pub fn escape_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('[', "&#91;")
        .replace(']', "&#93;")
}

/// Escapes a CQ-code parameter value.
pub fn escape_value(s: &str) -> String {
    escape_text(s).replace(',', "&#44;")
}

fn unescape_text(s: &str) -> String {
    s.replace("&#91;", "[")
        .replace("&#93;", "]")
        .replace("&amp;", "&")
}

fn unescape_value(s: &str) -> String {
    s.replace("&#44;", ",")
        .replace("&#91;", "[")
        .replace("&#93;", "]")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_codes_and_text() {
        let segs = parse(
            "你好[CQ:at,qq=10001] 看图[CQ:image,file=a&#44;b.jpg,url=http://x/&#91;1&#93;]&amp;尾",
        );
        assert_eq!(
            segs,
            vec![
                json!({"type":"text","data":{"text":"你好"}}),
                json!({"type":"at","data":{"qq":"10001"}}),
                json!({"type":"text","data":{"text":" 看图"}}),
                json!({"type":"image","data":{"file":"a,b.jpg","url":"http://x/[1]"}}),
                json!({"type":"text","data":{"text":"&尾"}}),
            ]
        );
    }

    #[test]
    fn malformed_codes_are_text() {
        assert_eq!(
            parse("a[CQ:]b[CQ:face"),
            vec![json!({"type":"text","data":{"text":"a[CQ:]b[CQ:face"}})]
        );
        assert_eq!(parse(""), Vec::<Value>::new());
        assert_eq!(parse("[CQ:shake]"), vec![json!({"type":"shake","data":{}})]);
    }

    #[test]
    fn render_round_trips() {
        let segs = vec![
            json!({"type":"text","data":{"text":"a[b]&c,d"}}),
            json!({"type":"face","data":{"id":178}}),
            json!({"type":"at","data":{"qq":"all"}}),
            json!({"type":"json","data":{"data":"{\"a\":[1,2]}"}}),
        ];
        let raw = render(&segs);
        assert_eq!(
            raw,
            "a&#91;b&#93;&amp;c,d[CQ:face,id=178][CQ:at,qq=all][CQ:json,data={\"a\":&#91;1&#44;2&#93;}]"
        );
        let back = parse(&raw);
        assert_eq!(back[0], segs[0]);
        assert_eq!(back[1], json!({"type":"face","data":{"id":"178"}}));
        assert_eq!(back[3], segs[3]);
    }
}
