/** The radio buttons of the places a run's results may go (the plan's and the watch's), each with what it moves. */
import type { Placement, PlacementKind } from './types';

export function renderPlacementChoices(
  list: HTMLElement,
  placements: readonly Placement[],
  group: string,
  chosen: PlacementKind | undefined,
  onChoose: (kind: PlacementKind) => void,
): void {
  list.textContent = '';
  for (const choice of placements) {
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
