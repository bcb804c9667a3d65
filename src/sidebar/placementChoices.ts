/** The radio buttons of the places a run's results may go (the plan's and the watch's), each with what it moves. */
import { $ } from './dom';
import type { Placement, PlacementKind } from './types';

/** Into #`box`-placements (hidden without `placements`), as radio buttons of the group `group`. */
export function renderPlacementChoices(
  box: 'plan' | 'watch',
  group: string,
  placements: readonly Placement[] | undefined,
  chosen: PlacementKind | undefined,
  onChoose: (kind: PlacementKind) => void,
): void {
  const list = $(`${box}-placement-list`);
  list.textContent = '';
  $(`${box}-placements`).hidden = !placements;
  for (const choice of placements ?? []) {
    const row = document.createElement('div');
    row.className = 'choice';
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = group;
    radio.id = `${group}-${choice.kind}`;
    radio.value = choice.kind;
    radio.checked = chosen === choice.kind;
    radio.addEventListener('change', () => onChoose(choice.kind as PlacementKind));
    const label = document.createElement('label');
    label.htmlFor = radio.id;
    label.textContent =
      choice.kind === 'insert'
        ? `Insert columns (${choice.columns})`
        : `Use ${choice.columns}, further right`;
    const effect = document.createElement('span');
    effect.className = 'gray';
    effect.textContent = choice.effect;
    label.append(effect);
    row.append(radio, label);
    list.append(row);
  }
}
