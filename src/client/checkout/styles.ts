/**
 * The component's look, adopted by its shadow root as a constructed stylesheet: no `<style>` element and
 * no `style` attribute, so a page's `style-src` needs no 'unsafe-inline' and no gateway origin. Pages can
 * theme it through the custom properties (`--pc-accent`, `--pc-radius`, `--pc-font`) and `::part()`.
 */
export const CHECKOUT_CSS = `
:host { display: block; font: 15px/1.4 var(--pc-font, system-ui, sans-serif); color: #1f2933; }
:host([hidden]) { display: none; }
section { border: 1px solid #d3d9e0; border-radius: var(--pc-radius, 12px); padding: 16px; max-width: 560px; }
h2 { font-size: 17px; margin: 0 0 4px; }
.summary { margin: 0 0 12px; color: #52606d; }
.status { min-height: 1.4em; margin: 0 0 8px; }
.status.problem { color: #b42318; font-weight: 600; }
[role="radiogroup"] { display: grid; gap: 14px; }
.group { display: grid; gap: 8px; }
.group-heading { font-size: 13px; font-weight: 700; letter-spacing: 0.02em; text-transform: uppercase; color: #52606d; margin: 0; }
[role="radio"] { display: grid; grid-template-columns: 80px minmax(0, 1fr) auto; gap: 12px; align-items: center; padding: 10px 12px;
  border: 2px solid #d3d9e0; border-radius: calc(var(--pc-radius, 12px) - 4px); cursor: pointer; background: #fff; }
[role="radio"]:focus-visible { outline: 3px solid var(--pc-accent, #047857); outline-offset: 2px; }
[role="radio"][aria-checked="true"] { border-color: var(--pc-accent, #047857); background: #ecfdf5; }
[role="radio"][aria-disabled="true"] { cursor: not-allowed; opacity: 0.6; background: #f5f7fa; }
/* The badge at half its drawn size: its text (at least 8 units, drawn whole) stays legible. */
img { width: 80px; height: 32px; object-fit: contain; border-radius: 5px; }
/* Names wrap, never cut. */
.name { font-weight: 600; overflow-wrap: anywhere; }
.detail, .reason { font-size: 13px; color: #52606d; }
.reason { color: #b42318; }
.total { font-weight: 700; text-align: right; white-space: nowrap; }
.countdown { margin: 0 0 8px; font-weight: 600; color: #b54708; }
.countdown:empty { display: none; }
/* Contract §14: the chosen channel's instructions, below the list. */
.instructions { margin-top: 16px; border-top: 1px solid #d3d9e0; padding-top: 12px; }
.instructions[hidden] { display: none; }
.instructions h3 { font-size: 15px; margin: 0 0 8px; }
details { border: 1px solid #d3d9e0; border-radius: 8px; padding: 0 12px; margin: 0 0 8px; background: #fff; }
summary { cursor: pointer; padding: 10px 0; list-style-position: inside; }
summary h4 { display: inline; font-size: 14px; margin: 0; }
details ol { margin: 0 0 12px; padding-left: 1.4em; }
details li { margin: 4px 0; overflow-wrap: anywhere; }
/* Phones (320 px and up): the total goes under the name, so the name keeps the width. */
@media (max-width: 440px) {
  section { padding: 12px; }
  [role="radio"] { grid-template-columns: 64px minmax(0, 1fr); gap: 4px 10px; padding: 8px 10px; }
  img { width: 64px; height: 26px; grid-row: span 2; }
  .total { grid-column: 2; text-align: left; }
}
`;
