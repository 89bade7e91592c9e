//! Leadership of accounts under `[ha]`: one gateway at a time leads each
//! account, by a lease in a shared store renewed every `ttl / 3`.
//!
//! - [`LeaseStore`] is the port: claim (take a free or expired lease, or
//!   renew one's own) and release, decided by the store's own clock, so the
//!   gateways' clocks never have to agree.
//! - [`Leadership`] holds what this gateway knows of each account's lease.
//!   [`Leadership::require_leader`] refuses a call for an account it does
//!   not lead (`NotLeader`, naming the leader); [`Leadership::gate`] is open
//!   only while it leads, and the adapters connect to the implementation
//!   only while their gate is open.
//! - [`run`] keeps the leases: a leader renews; a standby tries to take an
//!   expired lease at least once a second. A leader steps down (closes the
//!   gate) as soon as a claim says another holds the lease, and when no
//!   renewal succeeded for the lease's term (the store unreachable), before
//!   another gateway can take it. Each new holding has a new epoch.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use futures_util::future::BoxFuture;

use crate::error::{Error, Kind, Result};
use crate::model::{AccountStatus, ConnState};

/// An account's gate: open while this gateway may connect to the account's
/// implementation.
#[derive(Debug, Clone)]
pub enum Gate {
    /// Always open (no `[ha]`).
    Open,
    /// Open while the watched value is `true`.
    Watch(watch::Receiver<bool>),
}

impl Gate {
    /// Whether the gate is open now.
    pub fn is_open(&self) -> bool {
        match self {
            Gate::Open => true,
            Gate::Watch(rx) => *rx.borrow(),
        }
    }

    /// Waits until the gate is open (at once when it is). Never returns
    /// once its [`Leadership`] is gone: the caller's shutdown ends the wait.
    pub async fn opened(&mut self) {
        self.wait(true).await;
    }

    /// Waits until the gate is closed; never returns for [`Gate::Open`].
    pub async fn closed(&mut self) {
        self.wait(false).await;
    }

    async fn wait(&mut self, open: bool) {
        match self {
            Gate::Open if open => {}
            Gate::Open => std::future::pending().await,
            Gate::Watch(rx) => {
                if rx.wait_for(|v| *v == open).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        }
    }
}

/// The `last_error` an adapter shows while its account's gate is closed.
pub const STANDBY: &str = "standby: another gateway leads this account";

/// The status of an account whose gate is closed: not connected, with
/// [`STANDBY`] as its last error.
pub fn show_standby(status: &mut AccountStatus) {
    status.state = ConnState::Connecting;
    status.last_error = STANDBY.to_owned();
}

/// Forgets [`STANDBY`] once the gate opened (another last error stays).
pub fn clear_standby(status: &mut AccountStatus) {
    if status.last_error == STANDBY {
        status.last_error.clear();
    }
}

impl Gate {
    /// Follows the gate until `cancel`: `closed` runs each time it closes,
    /// `opened` each time it opens again (never for [`Gate::Open`]).
    pub async fn follow(
        mut self,
        cancel: &CancellationToken,
        closed: impl Fn(),
        opened: impl Fn(),
    ) {
        loop {
            tokio::select! {
                () = self.closed() => {}
                () = cancel.cancelled() => return,
            }
            closed();
            tokio::select! {
                () = self.opened() => {}
                () = cancel.cancelled() => return,
            }
            opened();
        }
    }
}

/// A gateway that holds, or held, a lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Its `ha.instance`.
    pub instance: String,
    /// Its `ha.advertise` (empty: none given).
    pub advertise: String,
}

/// This gateway as a claimant: its name, its address for clients, and a
/// token of this process, so a restarted instance holds a new epoch.
#[derive(Debug, Clone)]
pub struct Claimant {
    /// Who it is.
    pub holder: Holder,
    /// Unique to this process.
    pub token: String,
}

/// What a claim found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseView {
    /// The holder of the lease after the claim.
    pub holder: Holder,
    /// The holding's epoch: it grows by one each time the lease changes
    /// hands.
    pub epoch: u64,
    /// Whether the claimant holds it.
    pub mine: bool,
}

/// The store of the leases (the port its adapter implements).
#[async_trait::async_trait]
pub trait LeaseStore: Send + Sync + 'static {
    /// Takes the lease of `account` when it is free or expired, or renews
    /// it when `me` holds it, for `ttl` from the store's clock; else
    /// reports its holder.
    async fn claim(&self, account: &str, me: &Claimant, ttl: Duration) -> Result<LeaseView>;

    /// Lets the lease of `account` go when `me` holds it (it expires now).
    async fn release(&self, account: &str, me: &Claimant) -> Result<()>;

    /// Where the leases live, for logs.
    fn describe(&self) -> String;
}

/// What this gateway knows of one account's lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// It leads the account, in this epoch.
    Leading {
        /// The holding's epoch.
        epoch: u64,
    },
    /// Another gateway leads it (`None`: not known yet, or nobody).
    Standby {
        /// The leader, when known.
        leader: Option<Holder>,
    },
}

/// Work that must be done before this gateway serves an account it has
/// just come to lead: reading back what the former leader left in the
/// shared stores (the journal's newest events, the offline queue's depth,
/// the media indexes). Given the account's id.
pub type OnLead = Arc<dyn Fn(String) -> BoxFuture<'static, Result<()>> + Send + Sync>;

/// What a shared store's writes are fenced with under `[ha]`: the epoch of
/// the lease this gateway holds on each account. A store commits a write
/// for an account only while the lease's epoch in the database is the one
/// [`Fence::epoch`] gives, in the same transaction as the write; a gateway
/// that lost its lease (paused, partitioned) commits nothing after that.
pub trait Fence: Send + Sync + 'static {
    /// The epoch of the lease this gateway holds on `account`; `None` when
    /// it does not lead it (the write is refused with `NotLeader`).
    fn epoch(&self, account: &str) -> Option<u64>;

    /// A store found the lease of `account` at another epoch: this gateway
    /// stops serving the account at once.
    fn lost(&self, account: &str);
}

/// The error of a write a [`Fence`] refused: `account`'s lease is held by
/// another gateway (or by nobody) now.
pub fn fenced(account: &str) -> Error {
    Error::new(
        Kind::NotLeader,
        format!(
            "this gateway no longer leads account {account:?}: its lease is held at a newer epoch; the write was not committed"
        ),
    )
    .with("account_id", account)
    .retry_after(Duration::from_secs(1))
}

/// The roles of this gateway's accounts.
pub struct Leadership {
    roles: HashMap<String, watch::Sender<Role>>,
    gates: HashMap<String, watch::Sender<bool>>,
    on_lead: parking_lot::Mutex<Vec<OnLead>>,
    /// The accounts being taken over, with their holding's epoch.
    taking: parking_lot::Mutex<HashMap<String, u64>>,
}

impl std::fmt::Debug for Leadership {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leadership")
            .field("roles", &self.roles)
            .finish_non_exhaustive()
    }
}

impl Fence for Leadership {
    fn epoch(&self, account: &str) -> Option<u64> {
        match self.role(account) {
            Role::Leading { epoch } => Some(epoch),
            Role::Standby { .. } => self.taking.lock().get(account).copied(),
        }
    }

    fn lost(&self, account: &str) {
        if matches!(self.role(account), Role::Leading { .. }) {
            tracing::warn!(account_id = %account, "a shared store found the account's lease at a newer epoch: stepping down");
            self.set(account, Role::Standby { leader: None });
        }
    }
}

impl Leadership {
    /// Standby for every account of `accounts` until a claim says otherwise.
    pub fn new<'a>(accounts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut roles = HashMap::new();
        let mut gates = HashMap::new();
        for id in accounts {
            roles.insert(
                id.to_owned(),
                watch::Sender::new(Role::Standby { leader: None }),
            );
            gates.insert(id.to_owned(), watch::Sender::new(false));
            // Standby until a claim: every account has a sample from the start.
            metrics::gauge!("onebot_gateway_account_leader", "account_id" => id.to_owned())
                .set(0.0);
        }
        Self {
            roles,
            gates,
            on_lead: parking_lot::Mutex::new(Vec::new()),
            taking: parking_lot::Mutex::new(HashMap::new()),
        }
    }

    /// Adds work run each time this gateway comes to lead an account,
    /// before it serves it (before its gate opens and calls pass).
    pub fn on_lead(&self, hook: OnLead) {
        self.on_lead.lock().push(hook);
    }

    /// Runs the [`on_lead`](Self::on_lead) work of `account`, in the order
    /// it was added; the first failure ends it. Meanwhile the shared
    /// stores' fence knows the holding's `epoch` (the work reads what the
    /// account's records are), while calls are still refused.
    async fn prepare(&self, account: &str, epoch: u64) -> Result<()> {
        let hooks = self.on_lead.lock().clone();
        self.taking.lock().insert(account.to_owned(), epoch);
        let mut done = Ok(());
        for hook in hooks {
            done = hook(account.to_owned()).await;
            if done.is_err() {
                break;
            }
        }
        self.taking.lock().remove(account);
        done
    }

    /// The accounts whose leases this gateway keeps.
    pub fn accounts(&self) -> impl Iterator<Item = &str> {
        self.roles.keys().map(String::as_str)
    }

    /// The gate of `account` (open when it is not under leadership).
    pub fn gate(&self, account: &str) -> Gate {
        match self.gates.get(account) {
            Some(tx) => Gate::Watch(tx.subscribe()),
            None => Gate::Open,
        }
    }

    /// The role of `account` (`Leading` with epoch 0 when it is not under
    /// leadership).
    pub fn role(&self, account: &str) -> Role {
        match self.roles.get(account) {
            Some(tx) => tx.borrow().clone(),
            None => Role::Leading { epoch: 0 },
        }
    }

    /// A watch on the role of `account`.
    pub fn watch(&self, account: &str) -> Option<watch::Receiver<Role>> {
        self.roles.get(account).map(watch::Sender::subscribe)
    }

    /// Passes when this gateway leads `account`; else `NotLeader` naming
    /// the leader when it is known.
    pub fn require_leader(&self, account: &str) -> Result<()> {
        match self.role(account) {
            Role::Leading { .. } => Ok(()),
            Role::Standby { leader } => Err(not_leader(account, leader.as_ref())),
        }
    }

    /// Records the role of `account`, opening or closing its gate.
    pub fn set(&self, account: &str, role: Role) {
        let (Some(roles), Some(gate)) = (self.roles.get(account), self.gates.get(account)) else {
            return;
        };
        let leading = matches!(role, Role::Leading { .. });
        let changed = roles.send_if_modified(|r| {
            if *r == role {
                false
            } else {
                *r = role.clone();
                true
            }
        });
        gate.send_if_modified(|g| std::mem::replace(g, leading) != leading);
        if changed {
            match &role {
                Role::Leading { epoch } => {
                    tracing::info!(account_id = %account, epoch, "leading the account");
                }
                Role::Standby { leader } => tracing::info!(
                    account_id = %account,
                    leader = leader.as_ref().map_or("", |h| h.instance.as_str()),
                    "standby for the account"
                ),
            }
            metrics::gauge!("onebot_gateway_account_leader", "account_id" => account.to_owned())
                .set(if leading { 1.0 } else { 0.0 });
        }
    }
}

/// The error of a call for an account another gateway leads (`leader`:
/// the leader, when known).
pub fn not_leader(account: &str, leader: Option<&Holder>) -> Error {
    let err = match leader {
        Some(h) => {
            let at = if h.advertise.is_empty() {
                String::new()
            } else {
                format!(" at {}", h.advertise)
            };
            Error::new(
                Kind::NotLeader,
                format!(
                    "account {account:?} is led by gateway {:?}{at}; only the leader serves it. Retry there, or through a route that follows the account's health",
                    h.instance
                ),
            )
            .with("leader", &h.instance)
        }
        None => Error::new(
            Kind::NotLeader,
            format!(
                "no gateway leads account {account:?} at the moment (a leader is being chosen); retry shortly"
            ),
        ),
    };
    let err = match leader {
        Some(h) if !h.advertise.is_empty() => err.with("advertise", &h.advertise),
        _ => err,
    };
    err.with("account_id", account)
        .retry_after(Duration::from_secs(1))
}

/// How long a standby waits between two claims.
fn standby_every(ttl: Duration) -> Duration {
    (ttl / 3).min(Duration::from_secs(1))
}

/// How long a leader's holding lasts without a renewal, counted from when
/// its last successful claim was sent: the term less a margin for clocks
/// running at different rates, so it steps down before another can take
/// the lease.
fn held_for(ttl: Duration) -> Duration {
    ttl - (ttl / 10).min(Duration::from_secs(1))
}

/// Claims the lease of every account of `leadership` once and records what
/// each claim found, so a gateway knows at start which accounts it leads
/// and who leads the others. A claim that fails or takes longer than a
/// third of the term leaves its account standby (logged); [`run`] goes on
/// from there.
pub async fn claim_once(
    leadership: &Leadership,
    store: &dyn LeaseStore,
    me: &Claimant,
    ttl: Duration,
) {
    for account in leadership.accounts() {
        match tokio::time::timeout(ttl / 3, store.claim(account, me, ttl)).await {
            Ok(Ok(view)) => {
                let role = role_of(view);
                let taken = match role {
                    Role::Leading { epoch } => {
                        take_over(leadership, store, me, account, epoch).await
                    }
                    Role::Standby { .. } => true,
                };
                if taken {
                    leadership.set(account, role);
                }
            }
            Ok(Err(e)) => {
                tracing::warn!(account_id = %account, error = %e, "claiming the account's lease failed");
            }
            Err(_) => tracing::warn!(
                account_id = %account,
                "claiming the account's lease took longer than a third of its term"
            ),
        }
    }
}

/// The role a claim's answer gives.
fn role_of(view: LeaseView) -> Role {
    if view.mine {
        Role::Leading { epoch: view.epoch }
    } else {
        Role::Standby {
            leader: Some(view.holder),
        }
    }
}

/// Runs the work of taking `account` over before it is served; when it
/// fails the lease just taken is let go (another gateway may take it, or
/// this one tries again on its next claim). True when the work was done.
async fn take_over(
    leadership: &Leadership,
    store: &dyn LeaseStore,
    me: &Claimant,
    account: &str,
    epoch: u64,
) -> bool {
    let Err(e) = leadership.prepare(account, epoch).await else {
        return true;
    };
    tracing::warn!(account_id = %account, error = %e, "taking the account over failed; its lease is let go");
    if let Err(e) = store.release(account, me).await {
        tracing::warn!(account_id = %account, error = %e, "releasing the account's lease failed; it expires in its term");
    }
    false
}

/// Keeps the lease of every account of `leadership` until `cancel`, then
/// releases those it holds.
pub async fn run(
    leadership: Arc<Leadership>,
    store: Arc<dyn LeaseStore>,
    me: Claimant,
    ttl: Duration,
    cancel: CancellationToken,
) {
    // Dropped with this future: the leases are kept only while it runs.
    let mut tasks = tokio::task::JoinSet::new();
    for id in leadership.accounts() {
        tasks.spawn(keep(
            leadership.clone(),
            store.clone(),
            me.clone(),
            id.to_owned(),
            ttl,
            cancel.clone(),
        ));
    }
    while tasks.join_next().await.is_some() {}
}

async fn keep(
    leadership: Arc<Leadership>,
    store: Arc<dyn LeaseStore>,
    me: Claimant,
    account: String,
    ttl: Duration,
    cancel: CancellationToken,
) {
    let renew_every = ttl / 3;
    // While leading: until when the holding lasts without another renewal.
    let mut held_until: Option<Instant> = None;
    loop {
        let sent = Instant::now();
        let claim = tokio::select! {
            c = tokio::time::timeout(renew_every, store.claim(&account, &me, ttl)) => c,
            () = cancel.cancelled() => break,
        };
        match claim {
            Ok(Ok(view)) => {
                let role = role_of(view);
                let taken = match role {
                    Role::Leading { epoch } if role != leadership.role(&account) => {
                        take_over(&leadership, store.as_ref(), &me, &account, epoch).await
                    }
                    _ => true,
                };
                if !taken {
                    held_until = None;
                } else {
                    held_until = matches!(role, Role::Leading { .. }).then(|| sent + held_for(ttl));
                    leadership.set(&account, role);
                }
            }
            Ok(Err(e)) => {
                tracing::warn!(account_id = %account, error = %e, "claiming the account's lease failed");
            }
            Err(_) => {
                tracing::warn!(
                    account_id = %account,
                    "claiming the account's lease took longer than a third of its term"
                );
            }
        }
        let next = sent
            + if held_until.is_some() {
                renew_every
            } else {
                standby_every(ttl)
            };
        // A leader whose renewals fail steps down when its holding ends,
        // before any other gateway can take the lease.
        let step_down = held_until.filter(|h| *h < next);
        tokio::select! {
            () = tokio::time::sleep_until(step_down.unwrap_or(next)) => {}
            () = cancel.cancelled() => break,
        }
        if let Some(h) = held_until
            && Instant::now() >= h
        {
            tracing::warn!(account_id = %account, "the account's lease could not be renewed in its term: stepping down");
            held_until = None;
            leadership.set(&account, Role::Standby { leader: None });
        }
    }
    if held_until.is_some() {
        leadership.set(&account, Role::Standby { leader: None });
        match tokio::time::timeout(Duration::from_secs(2), store.release(&account, &me)).await {
            Ok(Ok(())) => tracing::info!(account_id = %account, "released the account's lease"),
            Ok(Err(e)) => {
                tracing::warn!(account_id = %account, error = %e, "releasing the account's lease failed; it expires in its term");
            }
            Err(_) => {
                tracing::warn!(account_id = %account, "releasing the account's lease timed out; it expires in its term")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;

    /// A lease table kept in memory with a clock the test moves.
    #[derive(Default)]
    struct Table {
        rows: Mutex<HashMap<String, (String, Holder, u64, Instant)>>,
        down: Mutex<bool>,
    }

    #[async_trait::async_trait]
    impl LeaseStore for Table {
        async fn claim(&self, account: &str, me: &Claimant, ttl: Duration) -> Result<LeaseView> {
            if *self.down.lock() {
                return Err(Error::new(Kind::StorageFailed, "down"));
            }
            let now = Instant::now();
            let mut rows = self.rows.lock();
            let row = rows
                .entry(account.to_owned())
                .or_insert_with(|| (me.token.clone(), me.holder.clone(), 0, now));
            if row.0 == me.token && row.2 > 0 {
                row.3 = now + ttl;
            } else if row.3 <= now {
                *row = (me.token.clone(), me.holder.clone(), row.2 + 1, now + ttl);
            }
            Ok(LeaseView {
                holder: row.1.clone(),
                epoch: row.2,
                mine: row.0 == me.token,
            })
        }

        async fn release(&self, account: &str, me: &Claimant) -> Result<()> {
            if let Some(row) = self.rows.lock().get_mut(account)
                && row.0 == me.token
            {
                row.3 = Instant::now();
            }
            Ok(())
        }

        fn describe(&self) -> String {
            "memory".into()
        }
    }

    fn claimant(name: &str) -> Claimant {
        Claimant {
            holder: Holder {
                instance: name.into(),
                advertise: format!("{name}:50051"),
            },
            token: format!("{name}-token"),
        }
    }

    async fn role_becomes(l: &Leadership, account: &str, want: impl Fn(&Role) -> bool) {
        let mut rx = l.watch(account).unwrap();
        rx.wait_for(|r| want(r)).await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn one_leads_the_other_takes_over_after_the_term_with_a_new_epoch() {
        let table = Arc::new(Table::default());
        let ttl = Duration::from_secs(9);
        let (a, b) = (
            Arc::new(Leadership::new(["acc"])),
            Arc::new(Leadership::new(["acc"])),
        );
        let (stop_a, stop_b) = (CancellationToken::new(), CancellationToken::new());
        let ta = tokio::spawn(run(
            a.clone(),
            table.clone(),
            claimant("a"),
            ttl,
            stop_a.clone(),
        ));
        role_becomes(&a, "acc", |r| matches!(r, Role::Leading { epoch: 1 })).await;
        tokio::spawn(run(
            b.clone(),
            table.clone(),
            claimant("b"),
            ttl,
            stop_b.clone(),
        ));
        role_becomes(&b, "acc", |r| {
            matches!(r, Role::Standby { leader: Some(_) })
        })
        .await;
        // Several terms later the leader still leads and the standby waits.
        tokio::time::sleep(ttl * 3).await;
        assert!(matches!(a.role("acc"), Role::Leading { epoch: 1 }));
        let err = b.require_leader("acc").unwrap_err();
        assert_eq!(err.kind, Kind::NotLeader);
        assert_eq!(err.meta("leader"), Some("a"));
        assert_eq!(err.meta("advertise"), Some("a:50051"));
        assert!(!b.gate("acc").is_open() && a.gate("acc").is_open());
        // `a` is gone without releasing (its task aborted, as by kill -9).
        ta.abort();
        let died = Instant::now();
        role_becomes(&b, "acc", |r| matches!(r, Role::Leading { epoch: 2 })).await;
        let took = died.elapsed();
        assert!(took <= ttl + standby_every(ttl), "took {took:?}");
        assert!(b.require_leader("acc").is_ok() && b.gate("acc").is_open());
        stop_b.cancel();
    }

    #[tokio::test(start_paused = true)]
    async fn a_leader_whose_renewals_fail_steps_down_before_the_term_ends() {
        let table = Arc::new(Table::default());
        let ttl = Duration::from_secs(9);
        let a = Arc::new(Leadership::new(["acc"]));
        let stop = CancellationToken::new();
        tokio::spawn(run(
            a.clone(),
            table.clone(),
            claimant("a"),
            ttl,
            stop.clone(),
        ));
        role_becomes(&a, "acc", |r| matches!(r, Role::Leading { .. })).await;
        let claimed = Instant::now();
        *table.down.lock() = true;
        role_becomes(&a, "acc", |r| matches!(r, Role::Standby { leader: None })).await;
        assert!(
            claimed.elapsed() < ttl,
            "stepped down after {:?}",
            claimed.elapsed()
        );
        assert!(!a.gate("acc").is_open());
        assert_eq!(a.require_leader("acc").unwrap_err().kind, Kind::NotLeader);
        stop.cancel();
    }

    #[tokio::test(start_paused = true)]
    async fn a_stopped_leader_releases_and_the_standby_takes_over_at_once() {
        let table = Arc::new(Table::default());
        let ttl = Duration::from_secs(30);
        let (a, b) = (
            Arc::new(Leadership::new(["acc"])),
            Arc::new(Leadership::new(["acc"])),
        );
        let (stop_a, stop_b) = (CancellationToken::new(), CancellationToken::new());
        let ta = tokio::spawn(run(
            a.clone(),
            table.clone(),
            claimant("a"),
            ttl,
            stop_a.clone(),
        ));
        role_becomes(&a, "acc", |r| matches!(r, Role::Leading { .. })).await;
        tokio::spawn(run(
            b.clone(),
            table.clone(),
            claimant("b"),
            ttl,
            stop_b.clone(),
        ));
        role_becomes(&b, "acc", |r| {
            matches!(r, Role::Standby { leader: Some(_) })
        })
        .await;
        let stopped = Instant::now();
        stop_a.cancel();
        ta.await.unwrap();
        assert!(!a.gate("acc").is_open());
        role_becomes(&b, "acc", |r| matches!(r, Role::Leading { .. })).await;
        assert!(
            stopped.elapsed() <= standby_every(ttl),
            "{:?}",
            stopped.elapsed()
        );
        stop_b.cancel();
    }

    #[tokio::test]
    async fn a_first_claim_names_the_leader_or_takes_the_lease() {
        let table = Table::default();
        let ttl = Duration::from_secs(9);
        let (a, b) = (Leadership::new(["acc"]), Leadership::new(["acc"]));
        claim_once(&a, &table, &claimant("a"), ttl).await;
        claim_once(&b, &table, &claimant("b"), ttl).await;
        assert!(matches!(a.role("acc"), Role::Leading { epoch: 1 }) && a.gate("acc").is_open());
        assert_eq!(
            b.require_leader("acc").unwrap_err().meta("leader"),
            Some("a")
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_new_leader_serves_only_after_its_take_over_work_and_lets_go_when_it_fails() {
        let table = Arc::new(Table::default());
        let ttl = Duration::from_secs(9);
        let a = Arc::new(Leadership::new(["acc"]));
        // The work sees the account not served yet; it fails twice.
        let runs = Arc::new(Mutex::new(Vec::new()));
        {
            let (a2, runs) = (a.clone(), runs.clone());
            a.on_lead(Arc::new(move |account: String| {
                let (a2, runs) = (a2.clone(), runs.clone());
                Box::pin(async move {
                    let served = a2.require_leader(&account).is_ok() || a2.gate(&account).is_open();
                    // The shared stores' writes and reads pass meanwhile.
                    assert_eq!(a2.epoch(&account), Some(1));
                    let mut runs = runs.lock();
                    runs.push(served);
                    if runs.len() <= 2 {
                        Err(Error::internal("shared store down"))
                    } else {
                        Ok(())
                    }
                })
            }));
        }
        let stop = CancellationToken::new();
        tokio::spawn(run(
            a.clone(),
            table.clone(),
            claimant("a"),
            ttl,
            stop.clone(),
        ));
        role_becomes(&a, "acc", |r| matches!(r, Role::Leading { .. })).await;
        assert_eq!(*runs.lock(), [false, false, false]);
        // Each failure let the lease go (taken again by the same process:
        // the same epoch).
        assert!(
            matches!(a.role("acc"), Role::Leading { epoch: 1 }),
            "{:?}",
            a.role("acc")
        );
        assert!(
            table.rows.lock()["acc"].3 > Instant::now(),
            "held, not let go"
        );
        // Renewals do not run the work again.
        tokio::time::sleep(ttl * 2).await;
        assert_eq!(runs.lock().len(), 3);
        // A store that found the lease elsewhere steps the gateway down.
        assert_eq!(a.epoch("acc"), Some(1));
        a.lost("acc");
        assert_eq!(a.epoch("acc"), None);
        assert!(!a.gate("acc").is_open());
        stop.cancel();
    }

    #[test]
    fn accounts_without_leadership_are_served_and_their_gate_is_open() {
        let l = Leadership::new(["acc"]);
        assert!(l.require_leader("other").is_ok());
        assert!(l.gate("other").is_open());
        let err = l.require_leader("acc").unwrap_err();
        assert_eq!(err.kind, Kind::NotLeader);
        assert_eq!(err.meta("leader"), None);
        assert_eq!(err.meta("account_id"), Some("acc"));
    }
}
