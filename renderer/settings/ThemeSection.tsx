import { setThemeChoice, type ThemeChoice, useThemeChoice } from '../theme.ts';

const CHOICES: Array<{ value: ThemeChoice; label: string }> = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/**
 * The colour theme: the system's (the default), light or dark. Kept in this browser's storage,
 * not by the backend: it is how this window looks, not how the society runs.
 */
export function ThemeSection() {
  const choice = useThemeChoice();
  return (
    <section className="settings-section" id="settings-theme" data-testid="settings-theme">
      <h3>Theme</h3>
      <fieldset className="settings-theme" data-testid="theme-choice">
        <legend className="muted small">
          System follows your computer's light or dark setting.
        </legend>
        {CHOICES.map((c) => (
          <label key={c.value}>
            <input
              type="radio"
              name="theme"
              value={c.value}
              checked={choice === c.value}
              onChange={() => setThemeChoice(c.value)}
              data-testid={`theme-${c.value}`}
            />
            {c.label}
          </label>
        ))}
      </fieldset>
    </section>
  );
}
