/** The principal (spec, Principal) of a test certificate: the holder of a `sello certs issue-test --type ec/individual` certificate. */
export const testPrincipal = {
  first_name: 'Sofía',
  last_name: 'Íñiguez',
  second_last_name: 'Peña',
  email: 'sofia@contadores.ec',
  mobile_phone: '+593990000000',
  legal_id: '1712345675',
  legal_id_type: { type: 'ec-cedula', code: '05', name: 'Cédula' },
  address: {
    line_1: 'Av. Amazonas N34-451',
    locality: 'Iñaquito',
    administrative_district_level_1: 'Pichincha',
    administrative_district_level_2: 'Quito',
    country: { code: 'EC', name: 'Ecuador' },
  },
};
