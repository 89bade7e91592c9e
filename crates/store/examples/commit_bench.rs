//! 1000 single-row commits, each durable, with each embedded engine.
//! `cargo run --release -p onebot-gateway-store --example commit_bench -- <dir>`

use std::time::Instant;

const N: u64 = 1000;

fn report(name: &str, start: Instant) {
    let total = start.elapsed();
    println!(
        "{name}: {N} commits in {:.2?}, {:.0} µs per commit, {:.0} commits/s",
        total,
        total.as_secs_f64() * 1e6 / N as f64,
        N as f64 / total.as_secs_f64()
    );
}

fn sqlite(dir: &std::path::Path, sync: &str, exclusive: bool) {
    let path = dir.join(format!("bench-{sync}-{exclusive}.sqlite3"));
    let _ = std::fs::remove_file(&path);
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    if exclusive {
        conn.pragma_update(None, "locking_mode", "EXCLUSIVE")
            .unwrap();
    }
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", sync).unwrap();
    conn.execute_batch(
        "CREATE TABLE queue (account TEXT NOT NULL, seq INTEGER NOT NULL, value BLOB NOT NULL, PRIMARY KEY (account, seq)) WITHOUT ROWID",
    )
    .unwrap();
    let value = vec![7u8; 200];
    let start = Instant::now();
    for i in 0..N {
        let tx = conn.transaction().unwrap();
        tx.execute(
            "INSERT INTO queue (account, seq, value) VALUES ('a', ?1, ?2)",
            rusqlite::params![i as i64, value],
        )
        .unwrap();
        tx.commit().unwrap();
    }
    let mode = if exclusive {
        ", locking_mode=EXCLUSIVE"
    } else {
        ""
    };
    report(&format!("SQLite WAL synchronous={sync}{mode}"), start);
}

fn redb(dir: &std::path::Path) {
    const QUEUE: redb::TableDefinition<'_, (&str, u64), &[u8]> =
        redb::TableDefinition::new("queue");
    let path = dir.join("bench.redb");
    let _ = std::fs::remove_file(&path);
    let db = redb::Database::create(&path).unwrap();
    let value = vec![7u8; 200];
    let start = Instant::now();
    for i in 0..N {
        let txn = db.begin_write().unwrap();
        txn.open_table(QUEUE)
            .unwrap()
            .insert(("a", i), value.as_slice())
            .unwrap();
        txn.commit().unwrap();
    }
    report("redb Durability::Immediate", start);
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("a directory"));
    for _ in 0..2 {
        sqlite(&dir, "FULL", true);
        sqlite(&dir, "FULL", false);
        sqlite(&dir, "NORMAL", false);
        redb(&dir);
    }
}
