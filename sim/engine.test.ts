import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../core/events.ts';
import { Engine } from './engine.ts';

const heal = (at: number): InputEvent => ({ at, type: 'network.heal' });

describe('Engine', () => {
  it('applies input events before timers due at the same time, and timers in scheduling order', () => {
    const e = new Engine();
    const seen: string[] = [];
    e.at(5000, () => void seen.push('timer-a@5ms'));
    e.at(5000, () => void seen.push('timer-b@5ms'));
    e.run([heal(5), heal(5)], (ev) => seen.push(`input@${ev.at}ms`), { settleUs: 0 });
    expect(seen).toEqual(['input@5ms', 'input@5ms', 'timer-a@5ms', 'timer-b@5ms']);
  });

  it('ends at the last event plus the settle time; later timers never fire', () => {
    const e = new Engine();
    const fired: number[] = [];
    // A timer that re-arms every second forever, like a VRRP advert.
    const tick = (): void => {
      fired.push(e.nowUs);
      e.after(1_000_000, tick);
    };
    e.at(0, tick);
    const r = e.run([heal(2000)], () => {}, { settleUs: 3_000_000 });
    // last event 2 s + settle 3 s = 5 s; ticks at 0..5 s inclusive are due by then.
    expect(r.endUs).toBe(5_000_000);
    expect(fired).toEqual([0, 1, 2, 3, 4, 5].map((s) => s * 1_000_000));
    expect(r.events).toBe(1);
  });

  it('stops at a fixed duration and drops input beyond it', () => {
    const e = new Engine();
    let inputs = 0;
    const r = e.run([heal(1), heal(10), heal(20)], () => inputs++, { settleUs: 0, durationUs: 15_000 });
    expect(inputs).toBe(2);
    expect(r.endUs).toBe(15_000);
  });

  it('fires a timer scheduled late in the place reserved for it, and tells a step its place', () => {
    const e = new Engine();
    const seen: string[] = [];
    const places: Record<string, number> = {};
    let reserved = -1;
    e.at(0, () => {
      reserved = e.reserve();
      // Pushed after the reservation: without it, 'early' would fire second at 5 ms.
      e.at(5000, () => {
        places.other = e.nowSeq;
        seen.push('other');
      });
    });
    e.at(1000, () => {
      e.atReserved(5000, reserved, () => {
        places.early = e.nowSeq;
        seen.push('early');
      });
    });
    e.run([heal(5)], () => {
      places.input = e.nowSeq;
      seen.push('input');
    }, { settleUs: 0 });
    expect(seen).toEqual(['input', 'early', 'other']);
    // An input comes before every timer of its instant; timers compare by their places.
    expect(places.input).toBe(-1);
    expect(places.early).toBe(reserved);
    expect(places.early!).toBeLessThan(places.other!);
  });

  it('refuses timers in the past', () => {
    const e = new Engine();
    e.run([heal(10)], () => {
      expect(() => e.at(1, () => {})).toThrow(/in the past/);
    }, { settleUs: 0 });
  });
});
