/** The radio buttons of the places a run's results may go (the plan's and the watch's), each with what it moves. */
import { $, make } from './dom';
import type { Placement, PlacementKind } from './types';

/** Into #`box`-placements (hidden without `placements`), as radio buttons of the group `group`. */
export function renderPlacementChoices(
  box: 'plan' | 'watch',
  group: string,
  placements: readonly Placement[] | undefined,
  chosen: PlacementKind | undefined,
  onChoose: (kind: PlacementKind) => void,
): void {
  const rows = (placements ?? []).map(({ kind, columns, effect }) => {
    const id = `${group}-${kind}`;
    const radio = make('input', { type: 'radio', name: group, id, value: kind, checked: chosen === kind });
    radio.addEventListener('change', () => onChoose(kind));
    const text = kind === 'insert' ? `Insert columns (${columns})` : `Use ${columns}, further right`;
    const label = make(
      'label',
      { htmlFor: id, textContent: text },
      make('span', { className: 'gray', textContent: effect }),
    );
    return make('div', { className: 'choice' }, radio, label);
  });
  $(`${box}-placement-list`).replaceChildren(...rows);
  $(`${box}-placements`).hidden = !placements;
}
