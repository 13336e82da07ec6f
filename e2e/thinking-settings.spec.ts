/**
 * The Model panel's Thinking checkbox moves the sampling settings still at their defaults to Qwen3's thinking ones
 * (temperature 0.6, top-p 0.95, 1,024 new tokens; `sqlenv eval --thinking` plays the same) and keeps a value the
 * person changed; unticking moves them back. No model is loaded: this is the form alone.
 */
import { expect, openView, test } from './fixtures.ts';
import { modelPanel } from './llm-fixtures.ts';

test('Thinking switches the sampling defaults and keeps what was changed', async ({ page }) => {
  await openView(page, '#/watch');
  const panel = modelPanel(page);
  const temperature = panel.getByRole('spinbutton', { name: 'Temperature' });
  const topP = panel.getByRole('spinbutton', { name: 'Top-p' });
  const maxNew = panel.getByRole('spinbutton', { name: 'Max new tokens' });
  const thinking = panel.getByRole('checkbox', { name: 'Thinking' });
  await expect(temperature).toHaveValue('0.7');
  await expect(topP).toHaveValue('0.8');
  await expect(maxNew).toHaveValue('256');

  await thinking.check();
  await expect(temperature).toHaveValue('0.6');
  await expect(topP).toHaveValue('0.95');
  await expect(maxNew).toHaveValue('1024');

  await temperature.fill('0.3');
  await thinking.uncheck();
  await expect(temperature).toHaveValue('0.3');
  await expect(topP).toHaveValue('0.8');
  await expect(maxNew).toHaveValue('256');
});
