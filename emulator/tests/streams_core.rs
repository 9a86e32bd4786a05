//! The core's stream model under each schedule: order within a stream,
//! events between streams, the legacy stream, stale data and the hazard
//! report under `adversarial`, destroying with work pending. Each test runs
//! in its own process (the workers reach the emulator through its global).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::isolated;
use vmmkit_emulator::Schedule;
use vmmkit_emulator::core::{Emulator, EventFlags, HazardAgent, RowCopy, StreamKind, Work, emulator};

const ADVERSARIAL: Schedule = Schedule::Adversarial { seed: 7 };

fn emu(schedule: Schedule) -> &'static Emulator {
    let e = emulator().expect("emulator");
    e.set_schedule(schedule);
    e
}

fn copy(e: &Emulator, s: vmmkit_emulator::core::StreamId, dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len());
    let w = Work::Copy { dst: dst.as_mut_ptr() as usize, src: src.as_ptr() as usize, len: src.len() };
    // SAFETY: both buffers outlive the synchronize that each test does before dropping them.
    unsafe { e.enqueue(s, w) }.expect("enqueue");
}

#[test]
fn work_runs_in_order_within_a_stream_under_every_schedule() {
    isolated("work_runs_in_order_within_a_stream_under_every_schedule", &[], |_| {
        for schedule in [Schedule::Eager, Schedule::Async, ADVERSARIAL] {
            let e = emu(schedule);
            let s = e.stream_create(0, StreamKind::NonBlocking);
            let a = vec![5u8; 4096];
            let mut b = vec![0u8; 4096];
            let mut c = vec![0u8; 4096];
            copy(e, s, &mut b, &a);
            let (bp, cp) = (b.as_ptr() as usize, c.as_mut_ptr() as usize);
            // SAFETY: as in `copy`.
            unsafe { e.enqueue(s, Work::Copy { dst: cp, src: bp, len: 4096 }) }.unwrap();
            e.stream_synchronize(s, Some(Duration::from_secs(10))).unwrap();
            assert_eq!(c, a, "{schedule:?}");
            assert!(e.stream_query(s).unwrap());
            e.stream_destroy(s, vmmkit_emulator::core::Ending::Drain).unwrap();
            assert!(!e.stream_exists(s));
        }
    });
}

#[test]
fn eager_work_is_done_when_the_call_returns() {
    isolated("eager_work_is_done_when_the_call_returns", &[], |_| {
        let e = emu(Schedule::Eager);
        let s = e.stream_create(0, StreamKind::Blocking);
        let a = vec![3u8; 64];
        let mut b = vec![0u8; 64];
        copy(e, s, &mut b, &a);
        assert_eq!(b, a);
    });
}

#[test]
fn adversarial_holds_work_until_it_is_needed_and_reports_the_early_read() {
    isolated("adversarial_holds_work_until_it_is_needed_and_reports_the_early_read", &[], |_| {
        let e = emu(ADVERSARIAL);
        let s = e.stream_create(0, StreamKind::NonBlocking);
        let a = vec![9u8; 1 << 16];
        let mut b = vec![0u8; 1 << 16];
        copy(e, s, &mut b, &a);
        std::thread::sleep(Duration::from_millis(50));
        assert!(b.iter().all(|&x| x == 0), "the copy ran before anything needed it");
        // A host copy of the pending destination is the unsynchronised access.
        let mut out = vec![0u8; 16];
        // SAFETY: both are live host buffers of at least 16 bytes.
        unsafe { e.copy(out.as_mut_ptr() as usize, b.as_ptr() as usize, 16) }.unwrap();
        let h = e.take_hazards();
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!((h[0].first.agent, h[0].second.agent), (HazardAgent::Stream(s), HazardAgent::Host));
        assert_eq!(h[0].kind(), "read-after-write");
        assert!(h[0].to_string().contains("unsynchronised"));
        e.stream_synchronize(s, Some(Duration::from_secs(10))).unwrap();
        assert_eq!(b, a);
        // SAFETY: as above.
        unsafe { e.copy(out.as_mut_ptr() as usize, b.as_ptr() as usize, 16) }.unwrap();
        assert!(e.take_hazards().is_empty(), "a read after the synchronize is no hazard");
    });
}

#[test]
fn an_event_orders_two_streams() {
    isolated("an_event_orders_two_streams", &[], |_| {
        for schedule in [Schedule::Eager, Schedule::Async, ADVERSARIAL] {
            let e = emu(schedule);
            let (s1, s2) = (e.stream_create(0, StreamKind::NonBlocking), e.stream_create(0, StreamKind::NonBlocking));
            let ev = e.event_create(EventFlags { timing: true, ..EventFlags::default() }).unwrap();
            let a = vec![7u8; 1 << 16];
            let mut b = vec![0u8; 1 << 16];
            let mut c = vec![0u8; 1 << 16];
            copy(e, s1, &mut b, &a);
            e.event_record(ev, s1).unwrap();
            e.stream_wait_event(s2, ev).unwrap();
            let (bp, cp) = (b.as_ptr() as usize, c.as_mut_ptr() as usize);
            // SAFETY: as in `copy`.
            unsafe { e.enqueue(s2, Work::Copy { dst: cp, src: bp, len: 1 << 16 }) }.unwrap();
            // Only s2 is synchronised: the wait makes s1's copy run first.
            e.stream_synchronize(s2, Some(Duration::from_secs(10))).unwrap();
            assert_eq!(c, a, "{schedule:?}");
            assert!(e.event_query(ev).unwrap());
            assert!(e.take_hazards().is_empty(), "{schedule:?}: ordered by the event");
            e.event_destroy(ev).unwrap();
            assert!(e.event_query(ev).is_err());
        }
    });
}

#[test]
fn a_copy_from_memory_another_stream_has_yet_to_write_is_reported() {
    isolated("a_copy_from_memory_another_stream_has_yet_to_write_is_reported", &[], |_| {
        let e = emu(ADVERSARIAL);
        let (s1, s2) = (e.stream_create(0, StreamKind::NonBlocking), e.stream_create(0, StreamKind::NonBlocking));
        let a = vec![7u8; 4096];
        let mut b = vec![0u8; 4096];
        let mut c = vec![1u8; 4096];
        copy(e, s1, &mut b, &a);
        let (bp, cp) = (b.as_ptr() as usize, c.as_mut_ptr() as usize);
        // SAFETY: as in `copy`.
        unsafe { e.enqueue(s2, Work::Copy { dst: cp, src: bp, len: 4096 }) }.unwrap();
        e.stream_synchronize(s2, Some(Duration::from_secs(10))).unwrap();
        assert!(c.iter().all(|&x| x == 0), "s2 read b before s1 wrote it");
        // The race is found when the second of the two runs: s1's write, here.
        e.device_synchronize(None, Some(Duration::from_secs(10))).unwrap();
        let h = e.take_hazards();
        let (a1, a2) = (HazardAgent::Stream(s1), HazardAgent::Stream(s2));
        assert!(
            h.iter().any(|h| [h.first.agent, h.second.agent] == [a2, a1] && h.kind() == "write-after-read"),
            "{h:?}"
        );
    });
}

/// A copy of rows (a 2-D or 3-D copy, one work) moves only its rows, and
/// its accesses are its rows' spans: a read of a row another stream's copy
/// of rows has yet to write is reported, and so is one of a byte between
/// its rows (the span counts as written: docs/streams.md).
#[test]
fn a_copy_of_rows_is_one_work_and_its_race_is_reported() {
    isolated("a_copy_of_rows_is_one_work_and_its_race_is_reported", &[], |_| {
        let e = emu(ADVERSARIAL);
        let (s1, s2) = (e.stream_create(0, StreamKind::NonBlocking), e.stream_create(0, StreamKind::NonBlocking));
        let (a1, a2) = (HazardAgent::Stream(s1), HazardAgent::Stream(s2));
        let a: Vec<u8> = (0..=255).collect();
        let mut b = vec![0u8; 1024];
        let mut c = vec![1u8; 16];
        let (ap, bp) = (a.as_ptr() as usize, b.as_mut_ptr() as usize);
        // A row's bytes, then a byte between rows 7 and 8.
        for (at, len) in [(bp + 5 * 64, 16), (bp + 7 * 64 + 40, 1)] {
            let rows = Work::CopyRows(RowCopy { dst: bp, src: ap, len: 16, dst_pitch: 64, src_pitch: 16, rows: 16 });
            // SAFETY: the buffers outlive the device synchronize below.
            unsafe { e.enqueue(s1, rows) }.unwrap();
            // SAFETY: as above.
            unsafe { e.enqueue(s2, Work::Copy { dst: c.as_mut_ptr() as usize, src: at, len }) }.unwrap();
            e.stream_synchronize(s2, Some(Duration::from_secs(10))).unwrap();
            e.device_synchronize(None, Some(Duration::from_secs(10))).unwrap();
            let h = e.take_hazards();
            assert!(
                h.iter().any(|h| [h.first.agent, h.second.agent] == [a2, a1] && h.addr == at),
                "the read at {:#x} races the copy of rows: {h:?}",
                at - bp
            );
        }
        for (i, &x) in b.iter().enumerate() {
            assert_eq!(x, if i % 64 < 16 { a[i / 64 * 16 + i % 64] } else { 0 }, "byte {i}");
        }
        drop(c);
    });
}

#[test]
fn the_legacy_stream_waits_for_blocking_streams_but_not_for_non_blocking_ones() {
    isolated("the_legacy_stream_waits_for_blocking_streams_but_not_for_non_blocking_ones", &[], |_| {
        let e = emu(ADVERSARIAL);
        let blocking = e.stream_create(0, StreamKind::Blocking);
        let free = e.stream_create(0, StreamKind::NonBlocking);
        let legacy = e.legacy_stream(0);
        assert_eq!(e.legacy_stream(0), legacy);
        let a = vec![4u8; 4096];
        let (mut b, mut c) = (vec![0u8; 4096], vec![0u8; 4096]);
        copy(e, blocking, &mut b, &a);
        copy(e, free, &mut c, &a);
        let marker = Arc::new(Mutex::new(false));
        let m = marker.clone();
        // SAFETY: a host function touches no memory of the caller's.
        unsafe { e.enqueue(legacy, Work::Host(Box::new(move || *m.lock().unwrap() = true))) }.unwrap();
        e.stream_synchronize(legacy, Some(Duration::from_secs(10))).unwrap();
        assert!(*marker.lock().unwrap());
        assert_eq!(b, a, "the legacy stream's work waited for the blocking stream");
        assert!(c.iter().all(|&x| x == 0), "but not for the non-blocking one");
        e.device_synchronize(Some(0), Some(Duration::from_secs(10))).unwrap();
        assert_eq!(c, a);
    });
}

#[test]
fn elapsed_time_needs_timing_and_completed_records() {
    isolated("elapsed_time_needs_timing_and_completed_records", &[], |_| {
        let e = emu(Schedule::Async);
        let s = e.stream_create(0, StreamKind::NonBlocking);
        let timed = EventFlags { timing: true, ..EventFlags::default() };
        let (a, b) = (e.event_create(timed).unwrap(), e.event_create(timed).unwrap());
        let untimed = e.event_create(EventFlags::default()).unwrap();
        assert!(matches!(e.event_elapsed(a, b), Err(vmmkit_emulator::core::CoreError::EventNotRecorded(_))));
        e.event_record(a, s).unwrap();
        // SAFETY: a host function touches no memory of the caller's.
        unsafe { e.enqueue(s, Work::Host(Box::new(|| std::thread::sleep(Duration::from_millis(20))))) }.unwrap();
        e.event_record(b, s).unwrap();
        e.event_record(untimed, s).unwrap();
        e.event_synchronize(b, Some(Duration::from_secs(10))).unwrap();
        let ms = e.event_elapsed(a, b).unwrap();
        assert!((15.0..5000.0).contains(&ms), "{ms} ms");
        assert!(matches!(e.event_elapsed(a, untimed), Err(vmmkit_emulator::core::CoreError::TimingDisabled(_))));
    });
}

#[test]
fn destroying_a_stream_drains_detaches_or_discards_its_work() {
    isolated("destroying_a_stream_drains_detaches_or_discards_its_work", &[], |_| {
        use vmmkit_emulator::core::Ending;
        let e = emu(ADVERSARIAL);
        let a = vec![2u8; 4096];
        for (how, runs) in [(Ending::Drain, true), (Ending::Detach, true), (Ending::Discard, false)] {
            let s = e.stream_create(0, StreamKind::NonBlocking);
            let mut b = vec![0u8; 4096];
            let ev = e.event_create(EventFlags::default()).unwrap();
            copy(e, s, &mut b, &a);
            e.event_record(ev, s).unwrap();
            e.stream_destroy(s, how).unwrap();
            assert!(e.stream_synchronize(s, None).is_err(), "{how:?}: gone");
            if runs {
                e.event_synchronize(ev, Some(Duration::from_secs(10))).unwrap();
                assert_eq!(b, a, "{how:?}");
            } else {
                std::thread::sleep(Duration::from_millis(20));
                assert!(b.iter().all(|&x| x == 0), "{how:?}: the pending copy was dropped");
            }
        }
    });
}

#[test]
fn adversarial_device_synchronize_orders_streams_by_the_seed() {
    isolated("adversarial_device_synchronize_orders_streams_by_the_seed", &[], |_| {
        let order_for = |seed: u64| -> Vec<u64> {
            let e = emu(Schedule::Adversarial { seed });
            let seen = Arc::new(Mutex::new(Vec::new()));
            let streams: Vec<_> = (0..6).map(|_| e.stream_create(1, StreamKind::NonBlocking)).collect();
            for (i, &s) in streams.iter().enumerate() {
                let seen = seen.clone();
                // SAFETY: a host function touches no memory of the caller's.
                unsafe { e.enqueue(s, Work::Host(Box::new(move || seen.lock().unwrap().push(i as u64)))) }.unwrap();
            }
            e.device_synchronize(Some(1), Some(Duration::from_secs(10))).unwrap();
            for s in streams {
                e.stream_destroy(s, vmmkit_emulator::core::Ending::Drain).unwrap();
            }
            seen.lock().unwrap().clone()
        };
        let orders: Vec<Vec<u64>> = (1..=8).map(order_for).collect();
        assert!(orders.iter().all(|o| o.len() == 6));
        assert!(orders.iter().any(|o| o != &(0..6).collect::<Vec<_>>()), "some seed reorders: {orders:?}");
        assert!(orders.windows(2).any(|w| w[0] != w[1]), "seeds differ: {orders:?}");
    });
}

#[test]
fn each_thread_has_its_own_default_stream_until_it_ends() {
    isolated("each_thread_has_its_own_default_stream_until_it_ends", &[], |_| {
        let e = emu(Schedule::Async);
        let mine = e.per_thread_stream(0);
        assert_eq!(e.per_thread_stream(0), mine);
        assert_ne!(e.per_thread_stream(1), mine, "one per device");
        let (theirs, kind) = std::thread::spawn(move || {
            let s = e.per_thread_stream(0);
            (s, e.stream_info(s).unwrap().1)
        })
        .join()
        .unwrap();
        assert_ne!(theirs, mine, "one per thread");
        assert_eq!(kind, StreamKind::Blocking);
        assert!(!e.stream_exists(theirs), "a thread's default streams end with it");
        assert!(e.stream_exists(mine));
    });
}
