//! The filters and the order every archive search shares, written once for
//! both SQL stores: each store binds values its own way (`$n` in
//! PostgreSQL, `?n` in SQLite) and names its columns with or without a
//! table alias.

use onebot_gateway_domain::archive::store::{ChatScope, Query, chat_key};

/// A store's list of bound values: each call binds one and returns its
/// placeholder.
pub(crate) trait Binds {
    /// Binds a text value.
    fn text(&mut self, v: String) -> String;
    /// Binds an integer value.
    fn int(&mut self, v: i64) -> String;
}

/// How a store's SQL names the message columns.
pub(crate) struct Columns {
    /// Prefix of every column (`m.` when the query aliases the table).
    pub alias: &'static str,
    /// The condition of a row that was not recalled.
    pub not_recalled: &'static str,
}

/// Appends the `WHERE` clause of `query` (account, chats, time range,
/// sender, recalled rows, cursor) to `sql`; `false` when no row can match
/// (an empty chat list).
pub(crate) fn filters(query: &Query, cols: &Columns, sql: &mut String, b: &mut impl Binds) -> bool {
    let a = cols.alias;
    let account = b.text(query.account_id.clone());
    sql.push_str(&format!(
        " WHERE {a}account = {account} AND {a}body IS NOT NULL"
    ));
    if let ChatScope::Only(chats) = &query.chats {
        if chats.is_empty() {
            return false;
        }
        let parts: Vec<String> = chats
            .iter()
            .map(|c| {
                let (kind, id) = chat_key(*c);
                let k = b.text(kind.to_string());
                let i = b.int(id);
                format!("({a}chat_kind = {k} AND {a}chat_id = {i})")
            })
            .collect();
        sql.push_str(&format!(" AND ({})", parts.join(" OR ")));
    }
    if let Some(since) = query.since {
        let p = b.int(since);
        sql.push_str(&format!(" AND {a}time >= {p}"));
    }
    if let Some(until) = query.until {
        let p = b.int(until);
        sql.push_str(&format!(" AND {a}time < {p}"));
    }
    if let Some(sender) = query.sender_id {
        let p = b.int(sender);
        sql.push_str(&format!(" AND {a}sender_id = {p}"));
    }
    if !query.include_recalled {
        sql.push_str(&format!(" AND {}", cols.not_recalled));
    }
    if let Some(c) = &query.cursor {
        let t = b.int(c.time);
        let r = b.int(c.row);
        let op = if query.ascending { ">" } else { "<" };
        sql.push_str(&format!(" AND ({a}time, {a}id) {op} ({t}, {r})"));
    }
    true
}

/// Appends the order (time, then row, in the query's direction) and the
/// page size to `sql`.
pub(crate) fn order(query: &Query, cols: &Columns, sql: &mut String, b: &mut impl Binds) {
    let a = cols.alias;
    let dir = if query.ascending { "ASC" } else { "DESC" };
    let limit = b.int(query.limit as i64);
    sql.push_str(&format!(
        " ORDER BY {a}time {dir}, {a}id {dir} LIMIT {limit}"
    ));
}
