/**
 * How a new violation reaches an agent who is not looking at the screen: a short sound (Web Audio,
 * synthesised, so no audio file ships) and a system notification (Notifications API). Browsers
 * allow both only after a user gesture, so `enable()` must be called from a tap.
 */
export type NotificationState = NotificationPermission | 'unsupported';

export class FieldAlerts {
  private audio: AudioContext | null = null;

  /** From a tap: unlocks audio and asks for the notification permission once. */
  async enable(): Promise<NotificationState> {
    try {
      this.audio ??= new AudioContext();
      await this.audio.resume();
    } catch {
      // No audio output (some kiosks): the banner and the notification still work.
      this.audio = null;
    }
    if (!('Notification' in window)) return 'unsupported';
    if (Notification.permission === 'default') return Notification.requestPermission();
    return Notification.permission;
  }

  get notificationState(): NotificationState {
    return 'Notification' in window ? Notification.permission : 'unsupported';
  }

  /** Two rising tones, 0.3 s in all. False when audio has not been unlocked by a tap. */
  chime(): boolean {
    const audio = this.audio;
    if (audio === null || audio.state !== 'running') return false;
    const start = audio.currentTime;
    for (const [offset, frequency] of [
      [0, 880],
      [0.15, 1320],
    ] as const) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = 'sine';
      oscillator.frequency.value = frequency;
      // A short attack and decay: a bare on/off square of sound clicks on most phone speakers.
      gain.gain.setValueAtTime(0.0001, start + offset);
      gain.gain.exponentialRampToValueAtTime(0.3, start + offset + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.14);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(start + offset);
      oscillator.stop(start + offset + 0.15);
    }
    return true;
  }

  /** Shows a system notification when allowed; `tag` replaces an older one about the same violation. */
  notify(title: string, body: string, tag: string, onClick: () => void): boolean {
    if (this.notificationState !== 'granted') return false;
    try {
      const notification = new Notification(title, { body, tag, lang: 'pt-BR' });
      notification.onclick = () => {
        window.focus();
        onClick();
        notification.close();
      };
      return true;
    } catch {
      // Android Chrome allows notifications only from a service worker; the banner still shows.
      return false;
    }
  }
}
