//! The minted message ids of `[ha]` in the shared PostgreSQL database
//! (table `gateway_message_ids`, minted id → text), behind the domain's
//! [`IdMap`] port, so a new leader resolves the ids the former one minted.
//!
//! Not fenced: an id is derived from its text alone ([`onebot_gateway_domain::ids::mint`]),
//! so every gateway writes the same row for it, and the first text stored
//! for an id keeps it whoever wrote it.

use std::sync::Arc;

use super::Shared;
use onebot_gateway_domain::ids::IdMap;

/// The minted message ids in the shared database.
pub struct PgIds {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for PgIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgIds")
            .field("shared", &self.shared)
            .finish()
    }
}

impl PgIds {
    /// The ids in `shared`'s database (its tables are created by
    /// [`Shared::open`]).
    pub fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }
}

impl IdMap for PgIds {
    fn get(&self, id: i64) -> Result<Option<String>, String> {
        let shared = self.shared.clone();
        self.shared
            .run(async move {
                let client = shared.reader().await?;
                let row = client
                    .query_opt("SELECT text FROM gateway_message_ids WHERE id = $1", &[&id])
                    .await
                    .map_err(shared.err())?;
                Ok(row.map(|r| r.get(0)))
            })
            .map_err(|e| e.to_string())
    }

    /// One statement (all or none); an id already stored, or given twice,
    /// keeps its first text.
    fn put(&self, entries: &[(i64, String)]) -> Result<(), String> {
        if entries.is_empty() {
            return Ok(());
        }
        let ids: Vec<i64> = entries.iter().map(|(id, _)| *id).collect();
        let texts: Vec<String> = entries.iter().map(|(_, text)| text.clone()).collect();
        let shared = self.shared.clone();
        self.shared
            .run(async move {
                let client = shared.writer().await?;
                client
                    .execute(
                        "INSERT INTO gateway_message_ids (id, text) \
                         SELECT m.id, m.text FROM UNNEST($1::BIGINT[], $2::TEXT[]) WITH ORDINALITY AS m(id, text, n) \
                         ORDER BY n ON CONFLICT (id) DO NOTHING",
                        &[&ids, &texts],
                    )
                    .await
                    .map_err(shared.err())?;
                Ok(())
            })
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::tests::TestDb;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn ids_are_shared_and_an_id_keeps_its_first_text() {
        let Some(db) = TestDb::fresh("ids").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        let (ia, ib) = (PgIds::new(a.shared.clone()), PgIds::new(b.shared.clone()));
        let id = -(1i64 << 40);
        tokio::task::spawn_blocking(move || {
            ia.put(&[]).unwrap();
            ia.put(&[(id, "first".into()), (id - 1, "a".into())])
                .unwrap();
            ib.put(&[
                (id, "second".into()),
                (id - 2, "b".into()),
                (id - 2, "b again".into()),
            ])
            .unwrap();
            assert_eq!(ib.get(id).unwrap().as_deref(), Some("first"));
            assert_eq!(ib.get(id - 1).unwrap().as_deref(), Some("a"));
            assert_eq!(ia.get(id - 2).unwrap().as_deref(), Some("b"));
            assert_eq!(ia.get(id - 3).unwrap(), None);
        })
        .await
        .unwrap();
    }
}
