//! Lenient parameter access: ids as JSON numbers or numeric strings, booleans as
//! `true`/`"true"`/`1`/`"yes"` — the coercions TypeBox (NapCat) and SnowLuma's action kit apply.

use serde_json::{Map, Value};

use crate::response::ActionError;

/// Read-only view of an action's `params` object.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params<'a>(pub &'a Map<String, Value>);

fn as_int(v: &Value) -> Option<Option<i64>> {
    match v {
        Value::Null => Some(None),
        Value::Number(n) => n
            .as_i64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18)
                    .map(|f| f as i64)
            })
            .map(Some),
        Value::String(s) if s.trim().is_empty() => Some(None),
        Value::String(s) => s.trim().parse::<i64>().ok().map(Some),
        _ => None,
    }
}

impl<'a> Params<'a> {
    /// The raw value.
    pub(crate) fn raw(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key)
    }

    /// An optional integer; `null`/`""`/absent are `None`; anything non-numeric is a 1400.
    pub(crate) fn int(&self, key: &str) -> Result<Option<i64>, ActionError> {
        match self.0.get(key) {
            None => Ok(None),
            Some(v) => {
                as_int(v).ok_or_else(|| ActionError::bad_params(format!("{key} 参数格式错误")))
            }
        }
    }

    /// A required integer.
    pub(crate) fn req_int(&self, key: &str) -> Result<i64, ActionError> {
        self.int(key)?
            .ok_or_else(|| ActionError::bad_params(format!("缺少参数 {key}")))
    }

    /// An optional boolean (unparseable values count as absent).
    pub(crate) fn bool(&self, key: &str) -> Option<bool> {
        match self.0.get(key)? {
            Value::Bool(b) => Some(*b),
            Value::Number(n) => n.as_f64().map(|f| f != 0.0),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => Some(true),
                "false" | "0" | "no" | "" => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    /// An optional string (numbers are rendered, other types ignored).
    pub(crate) fn str(&self, key: &str) -> Option<String> {
        match self.0.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// How JavaScript's template literal would render the value (`undefined` when absent).
    pub(crate) fn js_display(&self, key: &str) -> String {
        match self.0.get(key) {
            None => "undefined".to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) => "null".to_owned(),
            Some(other) => other.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn coercions() {
        let v = json!({"a": 1, "b": "2", "c": "", "d": "x", "e": 3.0, "t": "true", "f": 0});
        let p = Params(v.as_object().unwrap());
        assert_eq!(p.int("a").unwrap(), Some(1));
        assert_eq!(p.int("b").unwrap(), Some(2));
        assert_eq!(p.int("c").unwrap(), None);
        assert!(p.int("d").is_err());
        assert_eq!(p.int("e").unwrap(), Some(3));
        assert_eq!(p.int("zz").unwrap(), None);
        assert!(p.req_int("zz").is_err());
        assert_eq!(p.bool("t"), Some(true));
        assert_eq!(p.bool("f"), Some(false));
        assert_eq!(p.js_display("zz"), "undefined");
        assert_eq!(p.js_display("a"), "1");
    }
}
