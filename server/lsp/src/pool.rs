//! The bounded worker pool that diagnoses forwarded outputs (`abidoc/terminalOutput`,
//! `abidoc/cellOutputs`): a fixed number of threads, a bounded queue, and coalescing of work for
//! the same terminal or notebook.
//!
//! Clients forward outputs as fast as commands and cells run, and nothing they send may block
//! the protocol reader: [`Pool::push`] never waits. A newer item with the key of a queued one is
//! folded into it ([`Work::absorb`]), so the queue holds at most one item per terminal or
//! notebook. When the queue is over its count or byte budget, the oldest item without a key is
//! dropped first (an item with a key is the latest output of its terminal or notebook), and the
//! oldest keyed one only when every queued item has a key. Items with the same key never run at
//! the same time, so their results go out in the order the outputs came.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Something a worker runs.
pub trait Work: Send + 'static {
    type Key: PartialEq + Send;

    /// Items with the same key coalesce; `None`: this item stands alone.
    fn key(&self) -> Option<Self::Key>;

    /// Folds `newer` (same key) into this queued item.
    fn absorb(&mut self, newer: Self);

    /// Bytes this item keeps alive while queued (its text).
    fn weight(&self) -> usize;

    /// Runs on a worker thread. A panic is caught by the worker, which goes on with the next item.
    fn run(self);
}

/// What [`Pool::push`] did.
#[derive(Debug)]
pub enum Pushed<W> {
    Queued,
    /// Folded into a queued item with the same key.
    Coalesced,
    /// Queued; the queue was over budget and these older items were dropped to make room.
    Dropped(Vec<W>),
}

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub workers: usize,
    /// Items waiting at most.
    pub capacity: usize,
    /// Bytes waiting at most (the newest item is always kept, however large).
    pub max_bytes: usize,
}

impl Default for Limits {
    /// Two workers: outputs come one per command or cell run, and the analysis thread and the
    /// blocking pool share the machine with them. 64 items or 64 MiB waiting is far more than
    /// a person produces; a flood beyond it is shed.
    fn default() -> Self {
        Self {
            workers: 2,
            capacity: 64,
            max_bytes: 64 << 20,
        }
    }
}

/// Owned by the session: dropping it lets the workers finish the queue and exit.
pub struct Pool<W: Work> {
    inner: Arc<Inner<W>>,
    limits: Limits,
}

impl<W: Work> std::fmt::Debug for Pool<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("limits", &self.limits)
            .finish()
    }
}

struct Inner<W: Work> {
    state: Mutex<State<W>>,
    ready: Condvar,
}

struct State<W: Work> {
    queue: VecDeque<W>,
    bytes: usize,
    /// Keys of the items running now.
    running: Vec<Option<W::Key>>,
    /// Worker threads started (lazily, on the first pushes).
    started: usize,
    closed: bool,
}

impl<W: Work> Inner<W> {
    /// The queue stays consistent through a panic: every mutation of it is a single call that
    /// completes, and work itself runs outside the lock.
    fn lock(&self) -> MutexGuard<'_, State<W>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn worker(&self, slot: usize) {
        let mut state = self.lock();
        loop {
            let next = state.queue.iter().position(|w| {
                let key = w.key();
                key.is_none() || !state.running.iter().any(|r| r.as_ref() == key.as_ref())
            });
            let Some(work) = next.and_then(|i| state.queue.remove(i)) else {
                if state.closed {
                    return;
                }
                state = self
                    .ready
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            state.bytes = state.bytes.saturating_sub(work.weight());
            if let Some(running) = state.running.get_mut(slot) {
                *running = work.key();
            }
            drop(state);
            // The work reports its own failures; this only keeps the worker alive.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| work.run()));
            state = self.lock();
            if let Some(running) = state.running.get_mut(slot) {
                *running = None;
            }
            // An item held back for this key may run now.
            self.ready.notify_all();
        }
    }
}

impl<W: Work> Pool<W> {
    pub fn new(limits: Limits) -> Self {
        let limits = Limits {
            workers: limits.workers.max(1),
            capacity: limits.capacity.max(1),
            ..limits
        };
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    bytes: 0,
                    running: Vec::new(),
                    started: 0,
                    closed: false,
                }),
                ready: Condvar::new(),
            }),
            limits,
        }
    }

    /// Queues `work` without blocking. Fails only when no worker thread could be started.
    pub fn push(&self, work: W) -> Result<Pushed<W>, String> {
        let mut state = self.inner.lock();
        let key = work.key();
        let queued = key
            .as_ref()
            .and_then(|k| state.queue.iter_mut().find(|w| w.key().as_ref() == Some(k)));
        let pushed = if let Some(queued) = queued {
            let before = queued.weight();
            queued.absorb(work);
            let after = queued.weight();
            state.bytes = state.bytes.saturating_sub(before).saturating_add(after);
            Pushed::Coalesced
        } else {
            state.bytes = state.bytes.saturating_add(work.weight());
            state.queue.push_back(work);
            Pushed::Queued
        };
        let dropped = self.shed(&mut state);
        self.start_worker(&mut state)?;
        drop(state);
        self.inner.ready.notify_one();
        Ok(if dropped.is_empty() {
            pushed
        } else {
            Pushed::Dropped(dropped)
        })
    }

    /// Drops the oldest items (those without a key first) until the queue is within its limits;
    /// the newest item stays.
    fn shed(&self, state: &mut State<W>) -> Vec<W> {
        let mut dropped = Vec::new();
        while state.queue.len() > 1
            && (state.queue.len() > self.limits.capacity || state.bytes > self.limits.max_bytes)
        {
            let last = state.queue.len() - 1;
            let victim = state
                .queue
                .iter()
                .take(last)
                .position(|w| w.key().is_none())
                .unwrap_or(0);
            let Some(work) = state.queue.remove(victim) else {
                break;
            };
            state.bytes = state.bytes.saturating_sub(work.weight());
            dropped.push(work);
        }
        dropped
    }

    /// Starts one more worker per push until the limit: an idle session has no thread.
    fn start_worker(&self, state: &mut State<W>) -> Result<(), String> {
        if state.started >= self.limits.workers {
            return Ok(());
        }
        let slot = state.started;
        let inner = self.inner.clone();
        std::thread::Builder::new()
            .name(format!("abidoc-outputs-{slot}"))
            .spawn(move || inner.worker(slot))
            .map_err(|e| format!("starting a worker failed: {e}"))?;
        state.started += 1;
        state.running.push(None);
        Ok(())
    }

    /// Items waiting now (for tests and logs).
    pub fn queued(&self) -> usize {
        self.inner.lock().queue.len()
    }
}

impl<W: Work> Default for Pool<W> {
    fn default() -> Self {
        Self::new(Limits::default())
    }
}

impl<W: Work> Drop for Pool<W> {
    fn drop(&mut self) {
        self.inner.lock().closed = true;
        self.inner.ready.notify_all();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use std::sync::mpsc;

    /// (key, id, bytes): a run sends its ids, then waits on the gate if it has one.
    struct Item {
        key: Option<u32>,
        ids: Vec<u32>,
        bytes: usize,
        done: mpsc::Sender<Vec<u32>>,
        gate: Option<Arc<(Mutex<bool>, Condvar)>>,
    }

    impl Work for Item {
        type Key = u32;
        fn key(&self) -> Option<u32> {
            self.key
        }
        fn absorb(&mut self, newer: Self) {
            self.ids.extend(newer.ids);
            self.bytes = newer.bytes;
        }
        fn weight(&self) -> usize {
            self.bytes
        }
        fn run(self) {
            if self.ids == [99] {
                std::panic::panic_any("on purpose");
            }
            if let Some(gate) = &self.gate {
                let (open, cv) = &**gate;
                let mut open = open.lock().unwrap();
                while !*open {
                    open = cv.wait(open).unwrap();
                }
            }
            let _ = self.done.send(self.ids);
        }
    }

    fn item(key: Option<u32>, id: u32, done: &mpsc::Sender<Vec<u32>>) -> Item {
        Item {
            key,
            ids: vec![id],
            bytes: 10,
            done: done.clone(),
            gate: None,
        }
    }

    fn open(gate: &Arc<(Mutex<bool>, Condvar)>) {
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
    }

    #[test]
    fn coalesces_by_key_and_sheds_unkeyed_first() {
        let pool = Pool::new(Limits {
            workers: 1,
            capacity: 3,
            max_bytes: 1 << 20,
        });
        let (tx, rx) = mpsc::channel();
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        // Occupies the only worker until the gate opens.
        let mut blocker = item(None, 0, &tx);
        blocker.gate = Some(gate.clone());
        pool.push(blocker).unwrap();
        while pool.queued() > 0 {
            std::thread::yield_now();
        }
        assert!(matches!(pool.push(item(None, 1, &tx)), Ok(Pushed::Queued)));
        assert!(matches!(
            pool.push(item(Some(7), 2, &tx)),
            Ok(Pushed::Queued)
        ));
        assert!(matches!(
            pool.push(item(Some(7), 3, &tx)),
            Ok(Pushed::Coalesced)
        ));
        assert!(matches!(
            pool.push(item(Some(8), 4, &tx)),
            Ok(Pushed::Queued)
        ));
        // Full: the unkeyed item goes, not the keyed ones.
        match pool.push(item(Some(9), 5, &tx)) {
            Ok(Pushed::Dropped(d)) => assert_eq!(
                d.iter().map(|w| w.ids.clone()).collect::<Vec<_>>(),
                [vec![1]]
            ),
            other => panic!("{:?}", other.map(|_| ())),
        }
        // Only keyed items: the oldest goes.
        match pool.push(item(Some(10), 6, &tx)) {
            Ok(Pushed::Dropped(d)) => assert_eq!(
                d.iter().map(|w| w.ids.clone()).collect::<Vec<_>>(),
                [vec![2, 3]]
            ),
            other => panic!("{:?}", other.map(|_| ())),
        }
        open(&gate);
        let got: Vec<Vec<u32>> = (0..4).map(|_| rx.recv().unwrap()).collect();
        assert_eq!(got, [vec![0], vec![4], vec![5], vec![6]]);
    }

    #[test]
    fn byte_budget_keeps_the_newest() {
        let pool = Pool::new(Limits {
            workers: 1,
            capacity: 100,
            max_bytes: 25,
        });
        let (tx, rx) = mpsc::channel();
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let mut blocker = item(None, 0, &tx);
        blocker.gate = Some(gate.clone());
        pool.push(blocker).unwrap();
        while pool.queued() > 0 {
            std::thread::yield_now();
        }
        pool.push(item(None, 1, &tx)).unwrap();
        pool.push(item(None, 2, &tx)).unwrap();
        assert!(matches!(pool.push(item(None, 3, &tx)), Ok(Pushed::Dropped(d)) if d.len() == 1));
        let mut huge = item(None, 4, &tx);
        huge.bytes = 1000;
        assert!(matches!(pool.push(huge), Ok(Pushed::Dropped(d)) if d.len() == 2));
        open(&gate);
        let got: Vec<Vec<u32>> = (0..2).map(|_| rx.recv().unwrap()).collect();
        assert_eq!(got, [vec![0], vec![4]]);
    }

    #[test]
    fn same_key_never_runs_twice_at_once_and_panics_are_contained() {
        let pool = Pool::new(Limits {
            workers: 2,
            capacity: 10,
            max_bytes: 1 << 20,
        });
        let (tx, rx) = mpsc::channel();
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let mut first = item(Some(1), 1, &tx);
        first.gate = Some(gate.clone());
        pool.push(first).unwrap();
        while pool.queued() > 0 {
            std::thread::yield_now();
        }
        // Same key as the running item: waits although a worker is free.
        pool.push(item(Some(1), 2, &tx)).unwrap();
        pool.push(item(Some(2), 3, &tx)).unwrap();
        assert_eq!(rx.recv().unwrap(), [3]);
        assert_eq!(pool.queued(), 1);
        open(&gate);
        assert_eq!(rx.recv().unwrap(), [1]);
        assert_eq!(rx.recv().unwrap(), [2]);
        for _ in 0..3 {
            pool.push(item(None, 99, &tx)).unwrap();
        }
        pool.push(item(None, 4, &tx)).unwrap();
        assert_eq!(rx.recv().unwrap(), [4]);
    }
}
