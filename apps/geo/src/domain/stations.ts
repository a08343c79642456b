/**
 * Public transport stations near a point (the `stations` of a property document).
 *
 * Hand-curated, real networks (no generated entries): Paris metro lines 1–14 with 3bis and 7bis,
 * RER A–E and tram lines T1, T2, T3a, T3b; the metros of Lyon, Marseille, Toulouse and Lille and
 * the Bordeaux tram. Each station lists the lines serving it.
 * - Coordinates are approximate (the station's main entrance area, ~100–200 m), enough to rank
 *   stations by distance from a listing, not to draw a map.
 * - Paris metro colours are the RATP chart values (line 1 #FFCD00 …); RER/tram colours and the
 *   other networks' colours are the commonly published values of their operators, approximate.
 * - Route names are the current termini as of the 2024 extensions (line 11 to Rosny-Bois-Perrier,
 *   line 14 to Saint-Denis Pleyel and Aéroport d'Orly, RER E to Nanterre – La Folie, T3b to Porte
 *   Dauphine).
 * - Ids are fixed in the tables below, never derived from array positions, so they are stable:
 *   Paris stations 1–999, Lyon 2001+, Marseille 3001+, Toulouse 4001+, Lille 5001+, Bordeaux 6001+;
 *   lines: Paris metro 101–114 (3bis 131, 7bis 171), RER 201–205, tram 301–332, then one hundred
 *   block per other network (Lyon 401+, Marseille 501+, Toulouse 601+, Lille 701+, Bordeaux 801+).
 */
import { nearestStations, type LocatedStation, type Station, type StationLine } from '@immo/contracts';
import { GeoValidationError } from './domain-errors';
import { type LatLon, isValidLatLon } from './geo-math';

// The public shapes are the contract's: property documents embed these stations as they are.
export type { Station, StationLine } from '@immo/contracts';

// Matches the stations-near request contract (libs/contracts geo-queries).
export const STATIONS_MAX_RADIUS_KM = 20;
export const STATIONS_MAX_LIMIT = 50;

type Mode = 'Métro' | 'RER' | 'Tramway';

interface LineRow {
  id: number;
  mode: Mode;
  number: string;
  color: string;
  routeName: string;
}

const LINE_ROWS: ReadonlyArray<LineRow> = [
  // Paris metro (RATP)
  { id: 101, mode: 'Métro', number: '1', color: '#FFCD00', routeName: 'La Défense – Château de Vincennes' },
  { id: 102, mode: 'Métro', number: '2', color: '#003CA6', routeName: 'Porte Dauphine – Nation' },
  { id: 103, mode: 'Métro', number: '3', color: '#837902', routeName: 'Pont de Levallois – Bécon – Gallieni' },
  { id: 131, mode: 'Métro', number: '3bis', color: '#6EC4E8', routeName: 'Gambetta – Porte des Lilas' },
  { id: 104, mode: 'Métro', number: '4', color: '#CF009E', routeName: 'Porte de Clignancourt – Bagneux – Lucie Aubrac' },
  { id: 105, mode: 'Métro', number: '5', color: '#FF7E2E', routeName: "Bobigny – Pablo Picasso – Place d'Italie" },
  { id: 106, mode: 'Métro', number: '6', color: '#6ECA97', routeName: 'Charles de Gaulle – Étoile – Nation' },
  { id: 107, mode: 'Métro', number: '7', color: '#FA9ABA', routeName: "La Courneuve – 8 Mai 1945 – Villejuif – Louis Aragon / Mairie d'Ivry" },
  { id: 171, mode: 'Métro', number: '7bis', color: '#6ECA97', routeName: 'Louis Blanc – Pré-Saint-Gervais' },
  { id: 108, mode: 'Métro', number: '8', color: '#E19BDF', routeName: 'Balard – Pointe du Lac' },
  { id: 109, mode: 'Métro', number: '9', color: '#B6BD00', routeName: 'Pont de Sèvres – Mairie de Montreuil' },
  { id: 110, mode: 'Métro', number: '10', color: '#C9910D', routeName: "Boulogne – Pont de Saint-Cloud – Gare d'Austerlitz" },
  { id: 111, mode: 'Métro', number: '11', color: '#704B1C', routeName: 'Châtelet – Rosny-Bois-Perrier' },
  { id: 112, mode: 'Métro', number: '12', color: '#007852', routeName: "Mairie d'Issy – Mairie d'Aubervilliers" },
  { id: 113, mode: 'Métro', number: '13', color: '#6EC4E8', routeName: 'Saint-Denis – Université / Les Courtilles – Châtillon – Montrouge' },
  { id: 114, mode: 'Métro', number: '14', color: '#62259D', routeName: "Saint-Denis Pleyel – Aéroport d'Orly" },
  // RER
  { id: 201, mode: 'RER', number: 'A', color: '#E2231A', routeName: 'Saint-Germain-en-Laye / Cergy-le-Haut / Poissy – Boissy-Saint-Léger / Marne-la-Vallée – Chessy' },
  { id: 202, mode: 'RER', number: 'B', color: '#7BA3DC', routeName: 'Aéroport Charles de Gaulle 2 TGV / Mitry – Claye – Robinson / Saint-Rémy-lès-Chevreuse' },
  { id: 203, mode: 'RER', number: 'C', color: '#C9910D', routeName: "Pontoise / Versailles Château Rive Gauche / Saint-Quentin-en-Yvelines – Massy – Palaiseau / Dourdan / Saint-Martin-d'Étampes" },
  { id: 204, mode: 'RER', number: 'D', color: '#00AE41', routeName: 'Creil – Melun / Malesherbes / Corbeil-Essonnes' },
  { id: 205, mode: 'RER', number: 'E', color: '#E37ED1', routeName: 'Nanterre – La Folie – Chelles – Gournay / Tournan' },
  // Île-de-France tramways
  { id: 301, mode: 'Tramway', number: 'T1', color: '#003CA6', routeName: 'Asnières – Gennevilliers Les Courtilles – Noisy-le-Sec' },
  { id: 302, mode: 'Tramway', number: 'T2', color: '#CF009E', routeName: 'Pont de Bezons – Porte de Versailles' },
  { id: 331, mode: 'Tramway', number: 'T3a', color: '#FF7E2E', routeName: 'Pont du Garigliano – Porte de Vincennes' },
  { id: 332, mode: 'Tramway', number: 'T3b', color: '#00AE41', routeName: 'Porte de Vincennes – Porte Dauphine' },
  // Lyon metro (TCL)
  { id: 401, mode: 'Métro', number: 'A', color: '#EE3898', routeName: 'Perrache – Vaulx-en-Velin La Soie' },
  { id: 402, mode: 'Métro', number: 'B', color: '#007DC5', routeName: 'Charpennes – Saint-Genis-Laval Hôpitaux Sud' },
  { id: 403, mode: 'Métro', number: 'C', color: '#F99D1D', routeName: 'Hôtel de Ville – Cuire' },
  { id: 404, mode: 'Métro', number: 'D', color: '#00AC4D', routeName: 'Gare de Vaise – Gare de Vénissieux' },
  // Marseille metro (RTM)
  { id: 501, mode: 'Métro', number: 'M1', color: '#0075BF', routeName: 'La Rose – La Fourragère' },
  { id: 502, mode: 'Métro', number: 'M2', color: '#E3001B', routeName: 'Bougainville – Sainte-Marguerite Dromel' },
  // Toulouse metro (Tisséo)
  { id: 601, mode: 'Métro', number: 'A', color: '#E41B23', routeName: 'Basso Cambo – Balma-Gramont' },
  { id: 602, mode: 'Métro', number: 'B', color: '#FEDD04', routeName: 'Borderouge – Ramonville' },
  // Lille metro (Ilévia)
  { id: 701, mode: 'Métro', number: '1', color: '#FFCD00', routeName: 'CHU – Eurasanté – 4 Cantons – Stade Pierre Mauroy' },
  { id: 702, mode: 'Métro', number: '2', color: '#E2001A', routeName: 'Saint-Philibert – C.H. Dron' },
  // Bordeaux tram (TBM)
  { id: 801, mode: 'Tramway', number: 'A', color: '#81197F', routeName: 'Le Haillan Rostand / Aéroport – La Gardette Bassens Carbon-Blanc / Floirac Dravemont' },
  { id: 802, mode: 'Tramway', number: 'B', color: '#DA003E', routeName: 'Pessac Centre / Cap Métiers – Berges de la Garonne' },
  { id: 803, mode: 'Tramway', number: 'C', color: '#D15094', routeName: 'Parc des Expositions – Villenave Pyrénées / Gare de Blanquefort' },
];

const LINES_BY_ID: ReadonlyMap<number, StationLine> = new Map(
  LINE_ROWS.map((row) => [row.id, { id: row.id, name: `${row.mode} ${row.number}`, number: row.number, color: row.color, routeName: row.routeName }]),
);

// [id, name, lat, lon, line ids]
type StationRow = readonly [number, string, number, number, ReadonlyArray<number>];

const M1 = 101, M2 = 102, M3 = 103, M3B = 131, M4 = 104, M5 = 105, M6 = 106, M7 = 107, M7B = 171, M8 = 108, M9 = 109;
const M10 = 110, M11 = 111, M12 = 112, M13 = 113, M14 = 114;
const RA = 201, RB = 202, RC = 203, RD = 204, RE = 205;
const T1 = 301, T2 = 302, T3A = 331, T3B = 332;

const STATION_ROWS: ReadonlyArray<StationRow> = [
  // Paris and inner suburbs
  [1, 'Châtelet', 48.8584, 2.347, [M1, M4, M7, M11, M14]],
  [2, 'Châtelet – Les Halles', 48.8619, 2.347, [RA, RB, RD]],
  [3, 'Gare de Lyon', 48.8443, 2.3735, [M1, M14, RA, RD]],
  [4, 'Gare du Nord', 48.8809, 2.3553, [M4, M5, RB, RD]],
  [5, "Gare de l'Est", 48.8763, 2.3581, [M4, M5, M7]],
  [6, 'Saint-Lazare', 48.8754, 2.3253, [M3, M12, M13, M14]],
  [7, 'Haussmann – Saint-Lazare', 48.8747, 2.3281, [RE]],
  [8, 'Montparnasse – Bienvenüe', 48.8429, 2.3212, [M4, M6, M12, M13]],
  [9, 'Charles de Gaulle – Étoile', 48.8738, 2.295, [M1, M2, M6, RA]],
  [10, 'La Défense', 48.892, 2.238, [M1, RA, RE, T2]],
  [11, 'Nation', 48.8483, 2.3959, [M1, M2, M6, M9, RA]],
  [12, 'Bastille', 48.8532, 2.3691, [M1, M5, M8]],
  [13, 'République', 48.8674, 2.3636, [M3, M5, M8, M9, M11]],
  [14, 'Opéra', 48.8712, 2.3314, [M3, M7, M8]],
  [15, 'Auber', 48.8722, 2.3295, [RA]],
  [16, 'Concorde', 48.8656, 2.3212, [M1, M8, M12]],
  [17, 'Invalides', 48.861, 2.3146, [M8, M13, RC]],
  [18, "Place d'Italie", 48.831, 2.3557, [M5, M6, M7]],
  [19, 'Denfert-Rochereau', 48.8338, 2.3324, [M4, M6, RB]],
  [20, 'Barbès – Rochechouart', 48.8837, 2.3499, [M2, M4]],
  [21, 'Pigalle', 48.8822, 2.3376, [M2, M12]],
  [22, 'Strasbourg – Saint-Denis', 48.8696, 2.3543, [M4, M8, M9]],
  [23, 'Bercy', 48.8403, 2.3795, [M6, M14]],
  [24, "Gare d'Austerlitz", 48.8423, 2.3648, [M5, M10, RC]],
  [25, 'Odéon', 48.852, 2.3389, [M4, M10]],
  [26, 'Saint-Michel Notre-Dame', 48.8535, 2.3442, [M4, RB, RC]],
  [27, 'Hôtel de Ville', 48.8573, 2.3514, [M1, M11]],
  [28, 'Palais Royal – Musée du Louvre', 48.8625, 2.3364, [M1, M7]],
  [29, 'Louvre – Rivoli', 48.8609, 2.3409, [M1]],
  [30, 'Franklin D. Roosevelt', 48.8689, 2.3096, [M1, M9]],
  [31, 'George V', 48.872, 2.3006, [M1]],
  [32, 'Trocadéro', 48.863, 2.2875, [M6, M9]],
  [33, 'Bir-Hakeim', 48.8539, 2.2893, [M6]],
  [34, 'Champ de Mars – Tour Eiffel', 48.8558, 2.2894, [RC]],
  [35, 'La Motte-Picquet – Grenelle', 48.8496, 2.2986, [M6, M8, M10]],
  [36, 'Pasteur', 48.8425, 2.3128, [M6, M12]],
  [37, 'Porte de Versailles', 48.8325, 2.2878, [M12, T2, T3A]],
  [38, 'Porte Maillot', 48.878, 2.2822, [M1, RC, RE]],
  [39, 'Porte de Clignancourt', 48.8975, 2.3445, [M4]],
  [40, "Porte d'Orléans", 48.8233, 2.3253, [M4, T3A]],
  [41, 'Porte de Vincennes', 48.8471, 2.4106, [M1, T3A, T3B]],
  [42, 'Porte Dauphine', 48.8715, 2.2765, [M2, T3B]],
  [43, 'Château de Vincennes', 48.8443, 2.44, [M1]],
  [44, 'Gambetta', 48.865, 2.3985, [M3, M3B]],
  [45, 'Porte des Lilas', 48.877, 2.4066, [M3B, M11, T3B]],
  [46, 'Belleville', 48.8722, 2.3767, [M2, M11]],
  [47, 'Jaurès', 48.8826, 2.3706, [M2, M5, M7B]],
  [48, 'Stalingrad', 48.8843, 2.3685, [M2, M5, M7]],
  [49, 'Louis Blanc', 48.8812, 2.3644, [M7, M7B]],
  [50, 'Oberkampf', 48.8648, 2.3681, [M5, M9]],
  [51, 'Jussieu', 48.8462, 2.3546, [M7, M10]],
  [52, 'Les Gobelins', 48.8357, 2.3524, [M7]],
  [53, 'Sèvres – Babylone', 48.8512, 2.3266, [M10, M12]],
  [54, 'Duroc', 48.847, 2.3165, [M10, M13]],
  [55, 'Saint-Germain-des-Prés', 48.8539, 2.3336, [M4]],
  [56, 'Madeleine', 48.87, 2.325, [M8, M12, M14]],
  [57, 'Havre – Caumartin', 48.8737, 2.3282, [M3, M9]],
  [58, "Chaussée d'Antin – La Fayette", 48.8731, 2.3338, [M7, M9]],
  [59, 'Grands Boulevards', 48.8715, 2.3431, [M8, M9]],
  [60, 'Bonne Nouvelle', 48.8706, 2.3485, [M8, M9]],
  [61, 'Arts et Métiers', 48.8655, 2.3565, [M3, M11]],
  [62, 'Réaumur – Sébastopol', 48.8662, 2.3522, [M3, M4]],
  [63, 'Cité', 48.855, 2.3471, [M4]],
  [64, 'Les Halles', 48.8624, 2.346, [M4]],
  [65, 'Bibliothèque François Mitterrand', 48.8297, 2.3763, [M14, RC]],
  [66, 'Olympiades', 48.827, 2.367, [M14]],
  [67, 'Javel – André Citroën', 48.8462, 2.2779, [M10, RC]],
  [68, 'Balard', 48.8365, 2.2784, [M8, T3A]],
  [69, 'Pont de Sèvres', 48.8296, 2.2307, [M9]],
  [70, 'Mairie de Montreuil', 48.862, 2.441, [M9]],
  [71, 'Saint-Denis Pleyel', 48.9187, 2.3462, [M14]],
  [72, "Aéroport d'Orly", 48.729, 2.3697, [M14]],
  [73, "Mairie d'Issy", 48.824, 2.2735, [M12]],
  [74, 'Villiers', 48.8813, 2.3159, [M2, M3]],
  [75, 'Place de Clichy', 48.8836, 2.3272, [M2, M13]],
  [76, 'Saint-Paul', 48.8551, 2.3609, [M1]],
  [77, 'Reuilly – Diderot', 48.8472, 2.3868, [M1, M8]],
  [78, 'Daumesnil', 48.8394, 2.3959, [M6, M8]],
  [79, 'Porte Dorée', 48.835, 2.4059, [M8, T3A]],
  [80, 'Ternes', 48.8782, 2.2982, [M2]],
  [81, 'Boulogne – Pont de Saint-Cloud', 48.8406, 2.2287, [M10]],
  [82, 'Gallieni', 48.8653, 2.4159, [M3]],
  [83, 'Pont de Levallois – Bécon', 48.8972, 2.2804, [M3]],
  [84, 'Bobigny – Pablo Picasso', 48.9067, 2.4495, [M5]],
  [85, 'Pointe du Lac', 48.7688, 2.4643, [M8]],
  [86, 'La Courneuve – 8 Mai 1945', 48.9206, 2.4106, [M7]],
  [87, 'Villejuif – Louis Aragon', 48.7877, 2.3675, [M7]],
  [88, "Mairie d'Ivry", 48.8112, 2.3836, [M7]],
  [89, 'Rosny-Bois-Perrier', 48.883, 2.48, [M11, RE]],
  [90, 'Pré-Saint-Gervais', 48.8801, 2.3986, [M7B]],
  [91, "Mairie d'Aubervilliers", 48.9136, 2.3819, [M12]],
  [92, 'Saint-Denis – Université', 48.9459, 2.3644, [M13]],
  [93, 'Les Courtilles', 48.9303, 2.2842, [M13, T1]],
  [94, 'Châtillon – Montrouge', 48.8105, 2.3016, [M13]],
  [95, 'Bagneux – Lucie Aubrac', 48.8032, 2.3175, [M4]],
  [96, 'Magenta', 48.8816, 2.357, [RE]],
  [97, 'Cité Universitaire', 48.8207, 2.3384, [RB, T3A]],
  [98, 'Luxembourg', 48.846, 2.3393, [RB]],
  [99, 'Port-Royal', 48.8403, 2.3372, [RB]],
  [100, 'Aéroport Charles de Gaulle 2 TGV', 49.004, 2.5711, [RB]],
  [101, 'Versailles Château Rive Gauche', 48.8003, 2.129, [RC]],
  [102, 'Marne-la-Vallée – Chessy', 48.8702, 2.7828, [RA]],
  [103, 'Saint-Germain-en-Laye', 48.8981, 2.0932, [RA]],
  [104, 'Massy – Palaiseau', 48.7252, 2.26, [RB, RC]],
  [105, 'Pont du Garigliano', 48.8397, 2.2706, [RC, T3A]],
  [106, 'Porte de Clichy', 48.8946, 2.3133, [M13, M14, RC]],
  [107, 'Pont Cardinet', 48.8886, 2.315, [M14]],
  [108, 'Mairie de Saint-Ouen', 48.912, 2.3337, [M13, M14]],
  [109, 'Noisy-le-Sec', 48.8918, 2.4597, [RE, T1]],
  [110, 'Saint-Denis', 48.9356, 2.3536, [RD, T1]],
  [111, 'Pont de Bezons', 48.925, 2.218, [T2]],
  // Lyon
  [2001, 'Bellecour', 45.7578, 4.832, [401, 404]],
  [2002, 'Hôtel de Ville – Louis Pradel', 45.7673, 4.836, [401, 403]],
  [2003, 'Cordeliers', 45.7635, 4.8358, [401]],
  [2004, 'Perrache', 45.7498, 4.8265, [401]],
  [2005, 'Charpennes – Charles Hernu', 45.7705, 4.8632, [401, 402]],
  [2006, 'Vaulx-en-Velin La Soie', 45.761, 4.9214, [401]],
  [2007, 'Part-Dieu', 45.7617, 4.8555, [402]],
  [2008, 'Saxe – Gambetta', 45.7543, 4.8469, [402, 404]],
  [2009, 'Jean Macé', 45.7453, 4.8424, [402]],
  [2010, 'Croix-Rousse', 45.7744, 4.832, [403]],
  [2011, 'Vieux Lyon – Cathédrale Saint-Jean', 45.7597, 4.8262, [404]],
  [2012, 'Guillotière', 45.7553, 4.8428, [404]],
  [2013, 'Grange Blanche', 45.7431, 4.8796, [404]],
  [2014, 'Gare de Vaise', 45.7804, 4.8046, [404]],
  [2015, 'Gare de Vénissieux', 45.7058, 4.8872, [404]],
  [2016, 'Foch', 45.7691, 4.8441, [401]],
  [2017, 'Brotteaux', 45.7666, 4.8595, [402]],
  // Marseille
  [3001, 'Vieux-Port', 43.2952, 5.3744, [501]],
  [3002, 'Saint-Charles', 43.3027, 5.3804, [501, 502]],
  [3003, 'Castellane', 43.2857, 5.3838, [501, 502]],
  [3004, 'Noailles', 43.2966, 5.3816, [502]],
  [3005, 'Joliette', 43.3048, 5.3669, [502]],
  [3006, 'Rond-Point du Prado', 43.2714, 5.3926, [502]],
  [3007, 'La Timone', 43.2873, 5.4003, [501]],
  [3008, 'Réformés – Canebière', 43.2993, 5.3852, [501]],
  [3009, 'La Rose', 43.3334, 5.4277, [501]],
  [3010, 'Bougainville', 43.3211, 5.3675, [502]],
  [3011, 'Sainte-Marguerite Dromel', 43.2484, 5.4024, [502]],
  // Toulouse
  [4001, 'Capitole', 43.6045, 1.4455, [601]],
  [4002, 'Jean Jaurès', 43.6059, 1.449, [601, 602]],
  [4003, 'Marengo – SNCF', 43.6106, 1.4543, [601]],
  [4004, 'Esquirol', 43.6, 1.444, [601]],
  [4005, 'Arènes', 43.5931, 1.418, [601]],
  [4006, 'Basso Cambo', 43.5701, 1.392, [601]],
  [4007, 'Balma – Gramont', 43.6293, 1.4826, [601]],
  [4008, 'Compans – Caffarelli', 43.6107, 1.4353, [602]],
  [4009, 'Palais de Justice', 43.5928, 1.4448, [602]],
  [4010, 'Borderouge', 43.641, 1.4525, [602]],
  [4011, 'Ramonville', 43.5555, 1.477, [602]],
  [4012, 'Université Paul Sabatier', 43.5605, 1.463, [602]],
  [4013, "Jeanne d'Arc", 43.6103, 1.4455, [602]],
  [4014, 'François Verdier', 43.6003, 1.454, [602]],
  // Lille
  [5001, 'Gare Lille Flandres', 50.6365, 3.0707, [701, 702]],
  [5002, 'Gare Lille Europe', 50.639, 3.0757, [702]],
  [5003, 'Rihour', 50.6363, 3.0627, [701]],
  [5004, 'République – Beaux-Arts', 50.6315, 3.0616, [701]],
  [5005, 'Porte des Postes', 50.6175, 3.0485, [701, 702]],
  [5006, 'CHU – Eurasanté', 50.6116, 3.0362, [701]],
  [5007, '4 Cantons – Stade Pierre Mauroy', 50.606, 3.141, [701]],
  [5008, 'Lille Grand Palais', 50.6325, 3.0775, [702]],
  [5009, 'Roubaix Grand-Place', 50.6904, 3.1813, [702]],
  [5010, 'Tourcoing Centre', 50.7225, 3.1596, [702]],
  // Bordeaux
  [6001, 'Quinconces', 44.8448, -0.5737, [802, 803]],
  [6002, 'Hôtel de Ville', 44.8378, -0.5785, [801, 802]],
  [6003, 'Gare Saint-Jean', 44.8257, -0.5563, [803]],
  [6004, 'Porte de Bourgogne', 44.8373, -0.568, [801]],
  [6005, 'Grand Théâtre', 44.842, -0.5746, [802]],
  [6006, 'Place de la Bourse', 44.8412, -0.5699, [803]],
  [6007, 'Sainte-Catherine', 44.8384, -0.5733, [801]],
  [6008, 'Victoire', 44.8307, -0.5724, [802]],
  [6009, 'Stalingrad', 44.8406, -0.5563, [801]],
];

const STATIONS: ReadonlyArray<LocatedStation> = STATION_ROWS.map(([id, name, lat, lon, lineIds]) => ({
  station: {
    id,
    name,
    lines: lineIds.map((lineId) => {
      const line = LINES_BY_ID.get(lineId);
      if (!line) throw new Error(`Station ${id} refers to unknown line ${lineId}`);
      return line;
    }),
  },
  location: { lat, lon },
}));

function copyStation(station: Station): Station {
  return { id: station.id, name: station.name, lines: station.lines.map((line) => ({ ...line })) };
}

/** Every curated station with its position (for indexing or display elsewhere). */
export function allStations(): Array<Station & { location: LatLon }> {
  return STATIONS.map(({ station, location }) => ({ ...copyStation(station), location: { ...location } }));
}

/** Every curated station and its location, copies (the `stations` reply: services rank them with `nearestStations`). */
export function locatedStations(): LocatedStation[] {
  return STATIONS.map(({ station, location }) => ({ station: copyStation(station), location: { ...location } }));
}

export function allStationLines(): StationLine[] {
  return [...LINES_BY_ID.values()].map((line) => ({ ...line }));
}

/** Stations within `radiusKm`, nearest first, with their distance. */
export function stationsNearWithDistance(lat: number, lon: number, radiusKm = 1, limit = 5): Array<{ station: Station; distanceKm: number }> {
  if (!isValidLatLon(lat, lon)) throw new GeoValidationError('lat', 'lat must be within [-90, 90] and lon within [-180, 180]');
  if (!Number.isFinite(radiusKm) || radiusKm <= 0 || radiusKm > STATIONS_MAX_RADIUS_KM) {
    throw new GeoValidationError('radius', `must be greater than 0 and at most ${STATIONS_MAX_RADIUS_KM} km`);
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > STATIONS_MAX_LIMIT) {
    throw new GeoValidationError('limit', `must be an integer between 1 and ${STATIONS_MAX_LIMIT}`);
  }
  // A linear scan over a few hundred stations is faster than maintaining an index for them.
  return nearestStations(STATIONS, { lat, lon }, radiusKm, limit).map((hit) => ({ station: copyStation(hit.station), distanceKm: hit.distanceKm }));
}

/** Stations within `radiusKm` of the point in the spec's Station shape, nearest first. */
export function stationsNear(lat: number, lon: number, radiusKm = 1, limit = 5): Station[] {
  return stationsNearWithDistance(lat, lon, radiusKm, limit).map((hit) => hit.station);
}
