import { assert } from 'chai';
import { cleanup, mount } from '../testing/fixture.js';
import { SvcQuoteForm } from './quote-form.component.js';

interface Declaration {
  tagName: string;
  attributes: { name: string; fieldName: string }[];
  members: { name: string; attribute?: string }[];
  events: { name: string; type: { text: string } }[];
  cssParts: { name: string }[];
}

/** The manifest the package publishes, as editors and catalogs read it. */
async function manifest(): Promise<{ path: string; declaration: Declaration }> {
  const json = await (await fetch('/packages/elements/custom-elements.json')).json();
  const [module] = json.modules;
  return { path: module.path, declaration: module.declarations[0] };
}

describe('custom-elements.json', () => {
  afterEach(cleanup);

  it('describes the element as published: its module, attributes with their properties, events with types', async () => {
    const { path, declaration } = await manifest();
    assert.equal(path, 'dist/index.js', 'a file the package ships');
    assert.equal(declaration.tagName, 'svc-quote-form');
    const observed = (SvcQuoteForm as unknown as { observedAttributes: string[] }).observedAttributes;
    assert.sameMembers(
      declaration.attributes.map((a) => a.name),
      observed,
    );
    // Each attribute sets the property the manifest names.
    const samples: Record<string, string> = {
      'publishable-key': 'pk_test_manifest',
      'api-base': 'https://api.example/api/v1',
      locale: 'de',
      currency: 'USD',
      theme: 'dark',
    };
    const element = document.createElement('svc-quote-form') as unknown as Record<string, unknown> &
      HTMLElement;
    for (const attribute of declaration.attributes) {
      assert.equal(
        declaration.members.find((m) => m.name === attribute.fieldName)?.attribute,
        attribute.name,
      );
      element.setAttribute(attribute.name, samples[attribute.name]!);
      assert.equal(element[attribute.fieldName], samples[attribute.name], attribute.name);
    }
    assert.sameMembers(
      declaration.events.map((e) => e.name),
      ['svc-ready', 'svc-change', 'svc-draft-item', 'svc-quote-created', 'svc-error'],
    );
    for (const event of declaration.events) assert.match(event.type.text, /^CustomEvent<Svc\w+Detail>$/);
  });

  it('lists every part the form renders', async () => {
    const { declaration } = await manifest();
    const form = await mount();
    const rendered = new Set(
      [...form.shadowRoot!.querySelectorAll('[part]')].flatMap((el) => el.getAttribute('part')!.split(/\s+/)),
    );
    const listed = declaration.cssParts.map((p) => p.name);
    for (const part of rendered) assert.include(listed, part, `part "${part}" is rendered`);
  });
});
