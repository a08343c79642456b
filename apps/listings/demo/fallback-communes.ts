/**
 * A small built-in list of real communes for tests and for running the demo without the geo
 * data. INSEE codes, names, main zipcodes, departments and populations come from the official
 * administrative division (COG, as packaged by @etalab/decoupage-administratif); coordinates are
 * approximate town centres.
 */

/** A commune as the generator needs it; the caller maps its geo data to this shape. */
export interface DemoCommune {
  insee: string;
  name: string;
  zipcode: string;
  departmentCode: string;
  population: number;
  lat: number;
  lon: number;
}

export const FALLBACK_COMMUNES: readonly DemoCommune[] = [
  { insee: '75056', name: 'Paris', zipcode: '75001', departmentCode: '75', population: 2103778, lat: 48.8566, lon: 2.3522 },
  { insee: '13055', name: 'Marseille', zipcode: '13001', departmentCode: '13', population: 886040, lat: 43.2965, lon: 5.3698 },
  { insee: '69123', name: 'Lyon', zipcode: '69001', departmentCode: '69', population: 519127, lat: 45.764, lon: 4.8357 },
  { insee: '31555', name: 'Toulouse', zipcode: '31000', departmentCode: '31', population: 514819, lat: 43.6047, lon: 1.4442 },
  { insee: '06088', name: 'Nice', zipcode: '06000', departmentCode: '06', population: 357737, lat: 43.7102, lon: 7.262 },
  { insee: '44109', name: 'Nantes', zipcode: '44000', departmentCode: '44', population: 327734, lat: 47.2184, lon: -1.5536 },
  { insee: '34172', name: 'Montpellier', zipcode: '34000', departmentCode: '34', population: 310240, lat: 43.6108, lon: 3.8767 },
  { insee: '67482', name: 'Strasbourg', zipcode: '67000', departmentCode: '67', population: 293771, lat: 48.5734, lon: 7.7521 },
  { insee: '33063', name: 'Bordeaux', zipcode: '33000', departmentCode: '33', population: 267991, lat: 44.8378, lon: -0.5792 },
  { insee: '59350', name: 'Lille', zipcode: '59000', departmentCode: '59', population: 238246, lat: 50.6292, lon: 3.0573 },
  { insee: '35238', name: 'Rennes', zipcode: '35000', departmentCode: '35', population: 230890, lat: 48.1173, lon: -1.6778 },
  { insee: '51454', name: 'Reims', zipcode: '51100', departmentCode: '51', population: 177674, lat: 49.2583, lon: 4.0317 },
  { insee: '42218', name: 'Saint-Étienne', zipcode: '42000', departmentCode: '42', population: 173136, lat: 45.4397, lon: 4.3872 },
  { insee: '76351', name: 'Le Havre', zipcode: '76600', departmentCode: '76', population: 166687, lat: 49.4944, lon: 0.1079 },
  { insee: '21231', name: 'Dijon', zipcode: '21000', departmentCode: '21', population: 161830, lat: 47.322, lon: 5.0415 },
  { insee: '49007', name: 'Angers', zipcode: '49000', departmentCode: '49', population: 159022, lat: 47.4784, lon: -0.5632 },
  { insee: '38185', name: 'Grenoble', zipcode: '38000', departmentCode: '38', population: 156140, lat: 45.1885, lon: 5.7245 },
  { insee: '29019', name: 'Brest', zipcode: '29200', departmentCode: '29', population: 142346, lat: 48.3904, lon: -4.4861 },
  { insee: '74010', name: 'Annecy', zipcode: '74000', departmentCode: '74', population: 132117, lat: 45.8992, lon: 6.1294 },
  { insee: '87085', name: 'Limoges', zipcode: '87000', departmentCode: '87', population: 129937, lat: 45.8336, lon: 1.2611 },
{ insee: '92012', name: 'Boulogne-Billancourt', zipcode: '92100', departmentCode: '92', population: 119019, lat: 48.8397, lon: 2.2399 },
  { insee: '78646', name: 'Versailles', zipcode: '78000', departmentCode: '78', population: 84095, lat: 48.8049, lon: 2.1204 },
  { insee: '17300', name: 'La Rochelle', zipcode: '17000', departmentCode: '17', population: 79851, lat: 46.1603, lon: -1.1511 },
  { insee: '56260', name: 'Vannes', zipcode: '56000', departmentCode: '56', population: 55790, lat: 47.6582, lon: -2.7608 },
  { insee: '19031', name: 'Brive-la-Gaillarde', zipcode: '19100', departmentCode: '19', population: 47095, lat: 45.1589, lon: 1.5331 },
  { insee: '15014', name: 'Aurillac', zipcode: '15000', departmentCode: '15', population: 26214, lat: 44.9264, lon: 2.4397 },
  { insee: '64122', name: 'Biarritz', zipcode: '64200', departmentCode: '64', population: 26206, lat: 43.4832, lon: -1.5586 },
  { insee: '18279', name: 'Vierzon', zipcode: '18100', departmentCode: '18', population: 25068, lat: 47.2222, lon: 2.0689 },
  { insee: '52121', name: 'Chaumont', zipcode: '52000', departmentCode: '52', population: 20827, lat: 48.1113, lon: 5.1392 },
  { insee: '39300', name: 'Lons-le-Saunier', zipcode: '39000', departmentCode: '39', population: 16618, lat: 46.6744, lon: 5.555 },
  { insee: '23096', name: 'Guéret', zipcode: '23000', departmentCode: '23', population: 12955, lat: 46.1714, lon: 1.8716 },
  { insee: '48095', name: 'Mende', zipcode: '48000', departmentCode: '48', population: 12464, lat: 44.5181, lon: 3.5006 },
  { insee: '33009', name: 'Arcachon', zipcode: '33120', departmentCode: '33', population: 11092, lat: 44.6586, lon: -1.1689 },
  { insee: '24520', name: 'Sarlat-la-Canéda', zipcode: '24200', departmentCode: '24', population: 8763, lat: 44.8897, lon: 1.2166 },
  { insee: '46240', name: 'Rocamadour', zipcode: '46500', departmentCode: '46', population: 597, lat: 44.7994, lon: 1.6178 },
  { insee: '46256', name: 'Saint-Cirq-Lapopie', zipcode: '46330', departmentCode: '46', population: 201, lat: 44.465, lon: 1.67 },
];
