/** The owner of the demo's repositories on the local fake GitHub (and the fake's default user). */
export const DEMO_OWNER = 'maker-demo';
