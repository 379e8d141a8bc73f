//! The workers' one loop (`worker_loop`) over a scripted round, in paused time: how long it
//! waits after each outcome, what a wake-up cuts short, and how it stops.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::worker_loop::{Outcome, Pacing, Round, Worker};

const IDLE: Duration = Duration::from_secs(1);
const AFTER_ERROR: Duration = Duration::from_secs(5);

/// A round that answers the outcomes of its script in turn, then `Idle`, and notes when
/// (in paused time, from the start) each round began.
struct Scripted {
    script: Vec<Outcome>,
    started: Instant,
    began: Arc<Mutex<Vec<Duration>>>,
}

impl Round for Scripted {
    async fn run(&mut self) -> Outcome {
        self.began.lock().unwrap().push(self.started.elapsed());
        if self.script.is_empty() {
            Outcome::Idle
        } else {
            self.script.remove(0)
        }
    }
}

/// Starts a worker over `script`; returns it and the times its rounds began.
fn scripted(script: &[Outcome], wake: Option<Arc<Notify>>) -> (Worker, Arc<Mutex<Vec<Duration>>>) {
    let began = Arc::new(Mutex::new(Vec::new()));
    let round = Scripted {
        script: script.to_vec(),
        started: Instant::now(),
        began: Arc::clone(&began),
    };
    let pacing = Pacing {
        idle: IDLE,
        after_error: AFTER_ERROR,
        wake,
    };
    (Worker::spawn("scripted", round, pacing), began)
}

/// When the rounds began, in milliseconds from the start.
fn millis(began: &Mutex<Vec<Duration>>) -> Vec<u128> {
    began
        .lock()
        .unwrap()
        .iter()
        .map(Duration::as_millis)
        .collect()
}

#[tokio::test(start_paused = true)]
async fn busy_and_yielding_rounds_run_again_at_once_idle_waits_and_failed_backs_off() {
    use Outcome::{Busy, Failed, Yielding};
    let (worker, began) = scripted(&[Busy, Yielding, Busy, Failed], None);
    tokio::time::sleep(Duration::from_millis(6_500)).await;
    // Four rounds at 0 s; the failed one backs off 5 s; then idle ones a second apart.
    assert_eq!(millis(&began), [0, 0, 0, 0, 5_000, 6_000]);
    worker.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_wake_up_cuts_an_idle_wait_short_but_not_a_back_off() {
    let wake = Arc::new(Notify::new());
    let (worker, began) = scripted(&[Outcome::Idle, Outcome::Failed], Some(Arc::clone(&wake)));
    tokio::time::sleep(Duration::from_millis(100)).await;
    wake.notify_one();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Woken from its idle wait at 0.1 s; that round failed, so the next waits the full 5 s
    // however often it is woken meanwhile.
    assert_eq!(millis(&began), [0, 100]);
    wake.notify_one();
    tokio::time::sleep(Duration::from_millis(4_000)).await;
    assert_eq!(millis(&began), [0, 100]);
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    // The wake-up that came during the back-off is not lost: the idle wait after the round at
    // 5.1 s ends at once.
    assert_eq!(millis(&began), [0, 100, 5_100, 5_100]);
    worker.shutdown().await;
}

/// A round that takes `takes` of (paused) time, counting those that finished.
struct Slow {
    takes: Duration,
    finished: Arc<AtomicUsize>,
}

impl Round for Slow {
    async fn run(&mut self) -> Outcome {
        tokio::time::sleep(self.takes).await;
        self.finished.fetch_add(1, Ordering::SeqCst);
        Outcome::Busy
    }
}

#[tokio::test(start_paused = true)]
async fn a_stop_lets_the_round_in_flight_finish_and_starts_no_other() {
    let finished = Arc::new(AtomicUsize::new(0));
    let round = Slow {
        takes: Duration::from_secs(3),
        finished: Arc::clone(&finished),
    };
    let pacing = Pacing {
        idle: IDLE,
        after_error: AFTER_ERROR,
        wake: None,
    };
    let worker = Worker::spawn("slow", round, pacing);
    tokio::time::sleep(Duration::from_secs(1)).await;
    worker.shutdown().await;
    assert_eq!(
        finished.load(Ordering::SeqCst),
        1,
        "the round in flight ran to its end"
    );
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(finished.load(Ordering::SeqCst), 1, "and no other began");
}

#[tokio::test(start_paused = true)]
async fn a_worker_whose_handle_is_dropped_ends_in_its_next_wait() {
    let (worker, began) = scripted(&[Outcome::Failed], None);
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(worker);
    tokio::time::sleep(Duration::from_secs(20)).await;
    assert_eq!(millis(&began), [0], "no round after its handle went");
}
