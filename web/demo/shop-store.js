// The shop visitor's record in this browser's IndexedDB, promised: { user } bytes under one key. The
// shop's Worker (shop-worker.js) reads and writes it; IndexedDB is the same in a Worker as in the page.
const DATABASE = 'sublinear-bandits-shop';
const STORE = 'visitor';

function database() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
async function stored(mode, action) {
  const db = await database();
  try {
    return await new Promise((resolve, reject) => {
      const request = action(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}
export const loadVisitor = () => stored('readonly', (store) => store.get('state'));
export const saveVisitor = (state) => stored('readwrite', (store) => store.put(state, 'state'));
export const forgetVisitor = () => stored('readwrite', (store) => store.delete('state'));
